/**
 * The shape of a catalog and the compile-time check that keeps the locales in step. A catalog maps a
 * message key to a template whose parameters are written `{name}`, or to plural forms (chosen by
 * `Intl.PluralRules` on the `count` parameter). A locale other than English is declared with
 * `defineLocale`, which refuses a missing key, a key English does not have, and a template whose
 * parameters are not exactly English's (by name): `tsc` fails, naming the key and the expected
 * parameters. Literal braces have no escape: a catalog uses `{` and `}` only around parameters.
 */

/** Plural forms of one message; `other` is required, the rest as the locale's plural rules use them. */
export interface PluralForms {
  readonly zero?: string;
  readonly one?: string;
  readonly two?: string;
  readonly few?: string;
  readonly many?: string;
  readonly other: string;
}

/** One catalog entry: a template, or plural forms. */
export type CatalogEntry = string | PluralForms;

/** A catalog: message key → entry. */
export type CatalogShape = Readonly<Record<string, CatalogEntry>>;

/** The `{name}` parameters of a template, as a union of names. */
export type Placeholders<S> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The parameters of an entry: its placeholders, plus `count` for plural forms. */
export type EntryParams<E> = E extends string
  ? Placeholders<E>
  : E extends PluralForms
    ? "count" | Placeholders<E[Exclude<keyof E, undefined>] & string>
    : never;

type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** What a locale's entry must be: English's parameters exactly, or the type names the ones expected. */
export type CheckedLocale<Base extends CatalogShape, T> = {
  readonly [K in keyof Base]: K extends keyof T
    ? SameNames<EntryParams<Base[K]>, EntryParams<T[K]>> extends true
      ? T[K]
      : { readonly parametersMustBe: EntryParams<Base[K]> }
    : CatalogEntry;
} & { readonly [K in Exclude<keyof T, keyof Base>]: never };

/**
 * Declares a locale's catalog against the base (English) one: `defineLocale<typeof en>()({...})`.
 * Every key of the base must be there with the same parameters, and no other key.
 */
export function defineLocale<Base extends CatalogShape>() {
  return <const T extends CatalogShape>(catalog: T & CheckedLocale<Base, T>): T => catalog;
}
