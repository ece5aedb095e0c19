/**
 * Telegram's command menu: the gateway's catalog as `setMyCommands`, shortened step by step when
 * Telegram refuses it (`fallbackMenus`), the previous menu kept when every attempt fails. One menu per
 * language (`menuLanguages`): the default and `language_code: "zh"`.
 */

import type { CommandCatalogEntry } from "../../src/core/message.js";
import type { TelegramContext } from "./context.js";
import { GrammyError } from "./grammy.js";
import {
  buildCommandMenu,
  fallbackMenus,
  type MenuCommand,
  type MenuLanguage,
  menuLanguages,
} from "./menu.js";
import { callWithRetries } from "./outbound.js";

/** The command menu of one Telegram adapter. */
export class TelegramMenuSync {
  /** The menu Telegram accepted last. */
  private menu: MenuCommand[] | undefined;

  constructor(private readonly ctx: TelegramContext) {}

  /** Sets the bot's command menu from the gateway's catalog. */
  async syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    const { gateway } = this.ctx.options.config;
    const settings = { platform: gateway.platforms.telegram?.locale, gateway: gateway.locale };
    for (const language of menuLanguages(settings)) await this.syncMenu(catalog, language);
  }

  /** Registers the menu of one language (`language_code` "" is the default menu). */
  private async syncMenu(catalog: CommandCatalogEntry[], language: MenuLanguage): Promise<void> {
    const menu = buildCommandMenu(catalog, language.locale);
    const scope = { language_code: language.languageCode || undefined };
    if (menu.commands.length === 0) {
      this.ctx.logger.warn("telegram: the command catalog is empty; the menu is left as it is");
      return;
    }
    for (const commands of fallbackMenus(menu)) {
      try {
        await callWithRetries(this.ctx, "setMyCommands", () =>
          this.ctx.bot.api.setMyCommands(commands, scope, this.ctx.signal),
        );
        this.menu = commands;
        if (commands.length < menu.commands.length) {
          this.ctx.logger.warn(
            { kept: commands.length, wanted: menu.commands.length },
            "telegram: the menu was shortened to fit; the other skills still work when typed",
          );
        }
        return;
      } catch (error) {
        if (!(error instanceof GrammyError && error.error_code === 400)) {
          this.ctx.logger.error(
            { err: error },
            `telegram: setMyCommands failed; ${this.menu ? "the previous menu stays" : "the menu is unchanged"}`,
          );
          return;
        }
        this.ctx.logger.warn(
          { entries: commands.length, description: error.description },
          "telegram refused the command menu; trying a shorter one",
        );
      }
    }
    this.ctx.logger.error("telegram: every command menu was refused; the previous menu stays");
  }
}
