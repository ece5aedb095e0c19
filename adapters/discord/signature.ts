/**
 * Discord's request signatures, pure: every HTTP interaction carries `X-Signature-Ed25519` (hex) and
 * `X-Signature-Timestamp`, and the signature is Ed25519 over the timestamp followed by the raw body,
 * made with the application's key whose public half the Developer Portal shows (64 hex digits). Discord
 * docs, Interactions → Overview → "Validating Security Request Headers": an app must validate each
 * request and answer a failed validation with 401.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the 32 key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** An Ed25519 public key from its 64 hex digits, or undefined when the text is not one. */
export function publicKeyFromHex(hex: string): KeyObject | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
  try {
    return createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, "hex")]),
      format: "der",
      type: "spki",
    });
  } catch {
    return undefined;
  }
}

/**
 * True when `signatureHex` is `key`'s Ed25519 signature of `timestamp` + `body`. A missing or malformed
 * header is simply not a valid signature.
 */
export function verifyInteraction(
  key: KeyObject,
  signatureHex: string | undefined,
  timestamp: string | undefined,
  body: Buffer,
): boolean {
  if (!signatureHex || !timestamp || !/^[0-9a-fA-F]{128}$/.test(signatureHex)) return false;
  try {
    return verify(
      null,
      Buffer.concat([Buffer.from(timestamp, "utf8"), body]),
      key,
      Buffer.from(signatureHex, "hex"),
    );
  } catch {
    return false;
  }
}
