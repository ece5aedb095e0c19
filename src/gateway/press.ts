/**
 * The press path, beside the message path in gateway.ts: a button press the funnel admitted (access,
 * dedupe) is judged at once for the presser, and a single-use action is consumed before anything runs
 * (`ActionRouter.judgePress`); a refusal goes privately to the presser, before the platform's
 * acknowledgement. An accepted press then runs in the chat's queue like a typed command, and its result
 * edits the pressed message where the action's placement says so. A "Set KEY" press is judged the same
 * way and answered by the adapter's own private input, through the `secretInput` hooks built here.
 */
import { sessionKeyOf } from "../../commands/context.js";
import { isMutating, runCommand } from "../../commands/runner.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { admitSender, roleOf } from "../core/access.js";
import { resolveText, t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { Adapter, InboundMessage, SecretInputHooks } from "../core/message.js";
import { localizeReply, replyToPlainText, textReply } from "../core/reply.js";
import type { ActionRouter, PressVerdict } from "./actions.js";
import type { ReplyDelivery } from "./delivery.js";
import { readerLocale } from "./locale.js";
import type { ChatQueues } from "./queue.js";
import type { OutboundScrubber } from "./scrub.js";
import { type SecretEntry, spokenOpening, spokenPrompt } from "./secrets-entry/service.js";

/** What the press path works with, lent by the gateway. */
export interface PressDeps {
  config: SkillgateConfig;
  logger: Logger;
  queues: ChatQueues;
  delivery: ReplyDelivery;
  secrets: SecretEntry;
  scrubber: OutboundScrubber;
  /** The gateway's button router once it has started. */
  actions: () => ActionRouter | undefined;
  contextFor: (adapter: Adapter, message: InboundMessage, isAdmin: boolean) => CommandContext;
  onUnexpected: (error: unknown, spec: CommandSpec) => void;
  /** Records chat activity (the curator waits for idle time). */
  touch: () => void;
  /** config.yaml changed since the menus were synced. */
  configChanged: () => boolean;
  syncCommandCatalogs: () => Promise<void>;
  /** config.yaml as it is now (the locale settings follow reloads). */
  currentConfig: () => SkillgateConfig;
}

/** Button presses for one gateway (see the module comment). */
export class PressPath {
  constructor(private readonly deps: PressDeps) {}

  /**
   * A button press: judged at once for the presser (a refusal goes privately to them, before the
   * platform's acknowledgement), then, when accepted, run in the chat's queue like a typed command.
   * `onSettled` is called once the press was answered (refused, or run and shown).
   */
  async accept(
    adapter: Adapter,
    message: InboundMessage,
    actionId: string,
    isAdmin: boolean,
    onSettled: () => void = () => undefined,
  ): Promise<void> {
    const actions = this.deps.actions();
    if (!actions) return onSettled();
    const verdict = await actions.judgePress(message, actionId, () =>
      this.deps.contextFor(adapter, message, isAdmin),
    );
    if (verdict.kind === "refused") {
      this.deps.logger.info(
        { platform: message.platform, sender: message.sender.id },
        "gateway: button press refused",
      );
      await this.deps.delivery.send(adapter, message, verdict.reply).finally(onSettled);
      return;
    }
    void this.deps.queues
      .run(sessionKeyOf(message), () => this.run(adapter, message, verdict, isAdmin))
      .catch((error) =>
        this.deps.logger.error(
          { err: error, platform: message.platform },
          "gateway: handling a press failed",
        ),
      )
      .finally(onSettled);
  }

  private async run(
    adapter: Adapter,
    message: InboundMessage,
    verdict: Exclude<PressVerdict, { kind: "refused" }>,
    isAdmin: boolean,
  ): Promise<void> {
    const edit = verdict.action.placement === "replace" ? message.press?.messageId : undefined;
    if (verdict.kind === "cancel") {
      await this.deps.delivery.send(adapter, message, textReply(t("runner.cancelled")), {
        editMessageId: edit,
      });
      return;
    }
    if (verdict.kind === "secret") {
      // The adapter opens the input itself (`hooks.secretInput.open`); a press that reaches here came
      // from a platform without one.
      await this.deps.delivery.send(adapter, message, {
        ...textReply(t("gateway.noPrivateInput"), { exitCode: 1 }),
        private: true,
      });
      return;
    }
    const ctx = this.deps.contextFor(adapter, message, isAdmin);
    const work = runCommand(verdict.spec, ctx, verdict.input, { onUnexpected: this.deps.onUnexpected });
    const label = `/${verdict.spec.path.join(" ")}`;
    const { value: reply, editMessageId } = await this.deps.delivery.acknowledgeIfSlow(
      adapter,
      message,
      work,
      label,
      edit,
    );
    await this.deps.delivery.send(adapter, message, reply, { editMessageId, page: verdict.page });
    this.deps.touch();
    if (reply.exitCode === 0 && (isMutating(verdict.spec, verdict.input) || this.deps.configChanged()))
      await this.deps.syncCommandCatalogs();
  }

  /**
   * Private secret entry for one adapter. `open` answers a press of a "Set KEY" button (a stored action
   * judged like any other: known id, this chat, not expired, the presser an admin) with a one-time input
   * bound to the presser; `submit` stores a value typed into it. Values are never logged.
   */
  secretInputHooks(adapter: Adapter): SecretInputHooks {
    const { secrets, config } = this.deps;
    return {
      open: async (press) => {
        const actionId = press.press?.actionId;
        const actions = this.deps.actions();
        if (!actions || !actionId || !(await actions.isSecretAction(press, actionId))) return null;
        const locale = readerLocale(this.deps.currentConfig(), adapter, press);
        const admission = admitSender(config, press);
        if (!admission.admitted) return { refused: resolveText(t("gateway.notAllowed"), locale) };
        const isAdmin = roleOf(config, adapter.platform, press.sender.id, press.chat.id) === "admin";
        const verdict = await actions.judgePress(press, actionId, () =>
          this.deps.contextFor(adapter, press, isAdmin),
        );
        if (verdict.kind === "refused") return { refused: replyToPlainText(verdict.reply, locale) };
        if (verdict.kind !== "secret") return null;
        return spokenOpening(
          await secrets.open(adapter.capabilities, press, verdict.skill, verdict.key, locale),
          locale,
        );
      },
      describe: async (token, senderId) =>
        spokenPrompt(
          secrets.describe(token, adapter.platform, senderId),
          readerLocale(this.deps.currentConfig(), adapter),
        ),
      submit: async (token, senderId, value) => {
        const done = await secrets.submit(token, adapter.platform, senderId, value);
        if (done.stored)
          this.deps.logger.info(
            { platform: adapter.platform, key: done.stored.key, skill: done.stored.skill },
            "gateway: a secret was set through a private input",
          );
        return this.deps.scrubber.reply(
          localizeReply(done.reply, done.locale ?? readerLocale(this.deps.currentConfig(), adapter)),
        );
      },
    };
  }
}
