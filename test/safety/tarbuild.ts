/**
 * Builds tar archives byte by byte, so tests can produce members no well-behaved tar writer would:
 * absolute paths, `..`, escaping links, devices and fifos.
 */
import { gzipSync } from "node:zlib";

/** One member of a hand-built archive. */
export interface RawMember {
  path: string;
  type: "file" | "dir" | "symlink" | "hardlink" | "chardev" | "blockdev" | "fifo";
  content?: string;
  linkpath?: string;
}

const TYPE_FLAGS: Record<RawMember["type"], string> = {
  file: "0",
  hardlink: "1",
  symlink: "2",
  chardev: "3",
  blockdev: "4",
  dir: "5",
  fifo: "6",
};

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function header(name: string, type: string, size: number, linkpath: string): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, "utf8");
  block.write(octal(type === "5" ? 0o755 : 0o644, 8), 100, "ascii");
  block.write(octal(0, 8), 108, "ascii");
  block.write(octal(0, 8), 116, "ascii");
  block.write(octal(size, 12), 124, "ascii");
  block.write(octal(1_700_000_000, 12), 136, "ascii");
  block.write("        ", 148, "ascii");
  block.write(type, 156, "ascii");
  block.write(linkpath, 157, 100, "utf8");
  block.write("ustar\0", 257, "ascii");
  block.write("00", 263, "ascii");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return block;
}

function pad(data: Buffer): Buffer {
  const rest = data.length % 512;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(512 - rest)]);
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

/** The tar (gzipped unless `gzip: false`) holding `members` in order. */
export function buildTar(members: RawMember[], options: { gzip?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const member of members) {
    const content = Buffer.from(member.content ?? "", "utf8");
    const linkpath = member.linkpath ?? "";
    if (Buffer.byteLength(member.path) > 99 || Buffer.byteLength(linkpath) > 99) {
      const pax = Buffer.from(
        paxRecord("path", member.path) + (linkpath ? paxRecord("linkpath", linkpath) : ""),
        "utf8",
      );
      parts.push(header("PaxHeader", "x", pax.length, ""), pad(pax));
    }
    const size = member.type === "file" ? content.length : 0;
    parts.push(header(member.path.slice(0, 99), TYPE_FLAGS[member.type], size, linkpath.slice(0, 99)));
    if (size > 0) parts.push(pad(content));
  }
  parts.push(Buffer.alloc(1024));
  const tar = Buffer.concat(parts);
  return options.gzip === false ? tar : gzipSync(tar);
}
