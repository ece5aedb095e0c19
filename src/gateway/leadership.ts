/**
 * A coordinated replica's part as the lead comes and goes (`gateway.coordination`): as a standby it keeps
 * its scan of the library warm; when it takes the lead its adapters start what only one replica runs, it
 * consumes the shared inbox and starts the leader's duties; when it loses the lead the gateway stops, so
 * a fresh standby can rejoin. The gateway (`gateway.ts`) opens the coordination and starts this.
 */
import type { Logger } from "../core/logger.js";
import type { Adapter } from "../core/message.js";
import type { SkillLibrary } from "../skills/types.js";
import type { Coordinator } from "./coordination/coordinator.js";
import type { InboxConsumer } from "./inbox-consumer.js";
import type { GatewayOptions } from "./options.js";

/** How long a replica that led but could connect no platform waits before contending again. */
const ADAPTER_FAILURE_STANDBY_MS = 15_000;

/** How often a standby brings its scan of the library up to date. */
const STANDBY_SCAN_MS = 2_000;

/** What the leadership works with, lent by the gateway. */
export interface LeadershipDeps {
  coordination: Coordinator;
  inbox: InboxConsumer;
  adapters: readonly Adapter[];
  library: SkillLibrary;
  logger: Logger;
  /** The gateway is running (neither stopping nor stopped). */
  running: () => boolean;
  /** Registers the native command menus (a leader's duty). */
  syncCommandCatalogs: () => Promise<void>;
  /** Starts the one-time secret form (a leader's duty). */
  startSecretForm: () => Promise<void>;
  /** Starts the maintenance tick and the loaded-skill notices (a leader's duty). */
  startMaintenance: () => void;
  /** Stops the gateway. */
  stop: () => Promise<void>;
  onLeadershipLost: GatewayOptions["onLeadershipLost"];
}

/** A coordinated replica's standby scans, lead and hand-over (see the module comment). */
export class Leadership {
  /** The standby's next library scan (see `keepLibraryWarm`). */
  private warmTimer: NodeJS.Timeout | undefined;
  /** The leader's loop over the shared inbox, while it runs. */
  private consuming: Promise<void> | undefined;

  constructor(private readonly deps: LeadershipDeps) {}

  /** Starts the standby's scans and contends for the lead. */
  start(): void {
    this.keepLibraryWarm();
    this.deps.coordination.start({ lead: () => this.lead(), follow: (reason) => this.follow(reason) });
  }

  /** Ends the standby's scans (the gateway is stopping). */
  stopScanning(): void {
    clearTimeout(this.warmTimer);
  }

  /** Resolves once the leader's inbox loop ended (at once when the gateway no longer runs). */
  async consumed(): Promise<void> {
    await this.consuming;
  }

  /**
   * A standby scans the library before it contends, then every `STANDBY_SCAN_MS` (free when nothing
   * changed), so a take-over never starts with a cold scan (seconds on a 10k library, beyond the fence).
   * The scan runs synchronously within the call; the promise only carries its outcome.
   */
  private keepLibraryWarm(): void {
    const { coordination, library, logger } = this.deps;
    if (!this.deps.running()) return;
    const log = (error: unknown) => logger.debug({ err: error }, "gateway: standby library scan failed");
    if (coordination.leading() !== true) library.all().catch(log);
    this.warmTimer = setTimeout(() => this.keepLibraryWarm(), STANDBY_SCAN_MS).unref();
  }

  /**
   * This replica leads the home now: its adapters start what only one replica runs (polling, the
   * Discord gateway session, the webhook registration), it consumes the shared inbox and takes the
   * leader's duties.
   */
  private async lead(): Promise<void> {
    const { adapters, logger } = this.deps;
    if (!this.deps.running()) return;
    const led = await Promise.all(
      adapters.map(async (adapter) => {
        try {
          await adapter.lead?.();
          return true;
        } catch (error) {
          logger.error(
            { err: error, platform: adapter.platform },
            `gateway: ${adapter.platform} could not take the lead: ${(error as Error).message}`,
          );
          return false;
        }
      }),
    );
    if (!led.includes(true) && adapters.length > 0) {
      logger.error("gateway: leading, but no chat adapter could take the lead; giving it up");
      // Another replica may connect where this one could not: it stands back before contending again.
      this.follow("no chat adapter could start", ADAPTER_FAILURE_STANDBY_MS);
      return;
    }
    this.consuming = this.deps.inbox.consume();
    await this.deps.syncCommandCatalogs();
    // The lead may have been lost while the duties started (the fence fires on its own timer): a
    // stopping gateway starts nothing more.
    if (!this.deps.running() || this.deps.coordination.leading() === false) return;
    await this.deps.startSecretForm();
    if (!this.deps.running()) return;
    this.deps.startMaintenance();
  }

  /**
   * This replica stopped leading: it stops taking events at once (`accept` refuses them already, the
   * fence refuses writes) and stops; `onLeadershipLost` starts a fresh standby. Never awaits the stop:
   * the lease waits for this call, and the stop waits for the lease.
   */
  private follow(reason: string, retryAfterMs = 0): Promise<void> {
    if (!this.deps.running()) return Promise.resolve();
    this.deps.logger.warn({ reason }, `gateway: stopped leading (${reason}); handing over`);
    void this.deps.stop().then(() => this.deps.onLeadershipLost?.(reason, { retryAfterMs }));
    return Promise.resolve();
  }
}
