/**
 * Platform names as the configuration spells them in `platform:id` references (`gateway.admins`,
 * `gateway.allowed_users`, `gateway.allowed_chats`, `gateway.home_channel`).
 */

/** Every platform a `platform:id` reference may name (`console` is the terminal chat, `mock` the test adapter). */
export const REFERENCE_PLATFORMS = ["telegram", "feishu", "discord", "console", "mock"] as const;

const REFERENCE = new RegExp(`^(${REFERENCE_PLATFORMS.join("|")}):\\S+$`);

/** True for `platform:id` with a known platform and a non-empty id without spaces. */
export function isPlatformReference(text: string): boolean {
  return REFERENCE.test(text);
}
