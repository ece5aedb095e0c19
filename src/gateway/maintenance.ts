/**
 * The maintenance tick. About 90 seconds after the gateway starts, then every
 * `gateway.maintenance.check_minutes`, it asks the curator whether a run is due, passing the idle time
 * measured from the later of the process start and the last chat activity; it never starts while a chat
 * command is being handled. After a run that changed anything, the summary with the rename map and the
 * skills whose content changed is posted to the home chat; no-op runs and the first-run seeding post nothing. The clock is injectable.
 */
import type { SkillgateConfig } from "../config/config.js";
import { CuratorError } from "../core/errors.js";
import { LockBusyError } from "../core/fsutil.js";
import { english } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { Reply } from "../core/reply.js";
import type { RunLock } from "../core/stores.js";
import { consolidator as defaultConsolidator } from "../curator/consolidate.js";
import { mayNeedRecovery, recoverHome } from "../curator/recovery.js";
import { summaryReply } from "../curator/report.js";
import { maybeRunCurator } from "../curator/run.js";
import type { Consolidator, CuratorRunResult } from "../curator/types.js";
import { curatorContentChanges, withContentChanges } from "../curator/versions.js";
import type { SkillLibrary } from "../skills/types.js";

/** What one tick did. */
export interface TickOutcome {
  ran: boolean;
  /** Why it ran or not (`busy`, `locked`, or the curator's own reason). */
  reason: string;
  /** A summary was delivered to the home chat. */
  posted: boolean;
}

/** What the ticker needs from the gateway. */
export interface MaintenanceOptions {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  logger: Logger;
  /** Clock in ms (tests pass a controlled one). */
  now: () => number;
  /** True while a chat command is queued or running. */
  busy: () => boolean;
  /** Seconds since the last chat activity of this home. */
  idleSeconds: () => Promise<number>;
  /** Posts a reply to the home chat; resolves false when there is none to post to. */
  post: (reply: Reply) => Promise<boolean>;
  /** The LLM consolidation pass (used only when `curator.consolidate` is on); default the real one. */
  consolidator?: Consolidator;
  /** Called after a run that changed the library (the gateway refreshes command menus). */
  changed?: () => Promise<void>;
  /** Called after every run that took place (the gateway counts it in its metrics). */
  ran?: (result: CuratorRunResult) => void;
  /** The run lock; default the file lock of `home`. */
  runLock?: RunLock;
  /** Aborted when the gateway stops: a run in progress stops at its next safe point. */
  signal?: AbortSignal;
}

/** How chat spells a command in posted summaries. */
const chatSpelling = (path: string[]) => `/${path.join(" ")}`;

/** Delay of the first curator check after the gateway starts (the curator guide's "about 90 seconds"). */
export const FIRST_CHECK_DELAY_MS = 90_000;

/** Runs the curator from the gateway when due and idle; one tick at a time. */
export class MaintenanceTicker {
  private timer: NodeJS.Timeout | undefined;
  private firstTimer: NodeJS.Timeout | undefined;
  private current: Promise<TickOutcome> | undefined;

  constructor(private readonly options: MaintenanceOptions) {}

  /** Ticks once after `firstDelayMs`, then every `intervalMs`. */
  start(intervalMs: number, firstDelayMs: number = FIRST_CHECK_DELAY_MS): void {
    this.stop();
    const run = () => {
      void this.tick().catch((error) => this.options.logger.error({ err: error }, "maintenance tick failed"));
    };
    this.firstTimer = setTimeout(() => {
      this.firstTimer = undefined;
      run();
      this.timer = setInterval(run, intervalMs);
      this.timer.unref();
    }, firstDelayMs);
    this.firstTimer.unref();
  }

  /** Stops the timers; `settled` waits for a tick in progress. */
  stop(): void {
    if (this.firstTimer) clearTimeout(this.firstTimer);
    if (this.timer) clearInterval(this.timer);
    this.firstTimer = undefined;
    this.timer = undefined;
  }

  /** True while a tick is in progress. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Resolves when no tick is running. */
  async settled(): Promise<void> {
    await this.current?.catch(() => undefined);
  }

  /** One tick now. A tick already in progress is not doubled: its outcome is returned. */
  tick(): Promise<TickOutcome> {
    if (this.current) return this.current;
    this.current = this.runTick().finally(() => {
      this.current = undefined;
    });
    return this.current;
  }

  /**
   * Repairs what another process's crash left in the home (a killed CLI beside this gateway), before the
   * curator is asked; each repair is logged. A failure is logged and the tick goes on.
   */
  private async recover(): Promise<void> {
    const { options } = this;
    if (!mayNeedRecovery(options.home)) return;
    try {
      const notes = await recoverHome(options.home, options.config, { runLock: options.runLock });
      for (const note of notes) options.logger.warn(english(note));
    } catch (error) {
      options.logger.error({ err: error }, "maintenance: recovering interrupted work failed");
    }
  }

  private async runTick(): Promise<TickOutcome> {
    const { options } = this;
    if (options.busy()) {
      options.logger.info(
        "maintenance: a chat command is in flight; curator check deferred to the next tick",
      );
      return { ran: false, reason: "busy", posted: false };
    }
    await this.recover();
    const idleForSeconds = await options.idleSeconds();
    let outcome: Awaited<ReturnType<typeof maybeRunCurator>>;
    try {
      outcome = await maybeRunCurator({
        home: options.home,
        config: options.config,
        library: options.library,
        now: new Date(options.now()),
        trigger: "auto",
        idleForSeconds,
        consolidator: options.consolidator ?? defaultConsolidator,
        runLock: options.runLock,
        signal: options.signal,
      });
    } catch (error) {
      if (
        error instanceof LockBusyError ||
        (error instanceof CuratorError && error.code === "curator.locked")
      ) {
        options.logger.info("maintenance: another process is running the curator; skipped");
        return { ran: false, reason: "locked", posted: false };
      }
      throw error;
    }
    options.logger.info({ ran: outcome.ran, reason: outcome.reason }, "maintenance: curator check");
    const result = outcome.result;
    if (outcome.ran && result) options.ran?.(result);
    if (!outcome.ran || !result?.changed) return { ran: outcome.ran, reason: outcome.reason, posted: false };
    await options
      .changed?.()
      .catch((error) => options.logger.warn({ err: error }, "maintenance: refreshing command menus failed"));
    let posted = false;
    try {
      // The skills whose content the run changed, from its audit-log lines (chats that loaded one are told).
      const changes = await curatorContentChanges(options.home, result.startedAt).catch(() => []);
      posted = await options.post(withContentChanges(summaryReply(result, chatSpelling), changes));
    } catch (error) {
      options.logger.error(
        { err: error },
        "maintenance: posting the curator summary to the home chat failed",
      );
    }
    if (!posted)
      options.logger.info(
        { summary: result.summary },
        "maintenance: curator changed the library (no home chat to post to)",
      );
    return { ran: true, reason: outcome.reason, posted };
  }
}
