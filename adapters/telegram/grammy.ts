/**
 * grammy as the Telegram adapter loads it: the build's minified copy of the installed package with its
 * HTTP client bundled in, when there is one (see `src/core/vendored.ts`); ~5 MB less of a gateway's RSS
 * than its hundred modules loaded one by one. Every part of the adapter takes grammy's values from here,
 * so an `instanceof GrammyError` meets the class the client threw; types come from `grammy` as usual.
 */
import type * as Grammy from "grammy";
import { requireVendored } from "../../src/core/vendored.js";

const grammy = requireVendored<typeof Grammy>("grammy");

export const { Api, Bot, GrammyError, HttpError, InputFile, webhookCallback } = grammy;
export type Api = Grammy.Api;
export type Bot = Grammy.Bot;
export type GrammyError = Grammy.GrammyError;
export type HttpError = Grammy.HttpError;
export type InputFile = Grammy.InputFile;
