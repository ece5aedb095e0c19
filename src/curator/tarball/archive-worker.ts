/**
 * Worker-thread entry of `streamArchiveOffThread`: writes one archive with `streamArchive` and posts its
 * progress and outcome to the parent; a stop message from the parent ends it early (its file closed).
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ArchiveJob, type ArchiveMessage, type ArchiveStop, streamArchive } from "./write.js";

const port = parentPort;
if (port) {
  const job = workerData as ArchiveJob;
  const post = (message: ArchiveMessage) => port.postMessage(message);
  const stopped = new AbortController();
  port.on("message", (message: ArchiveStop) => {
    if (message.kind === "stop") stopped.abort(new Error("the snapshot was discarded"));
  });
  // Listening must not keep the worker alive once the archive is done.
  port.unref();
  streamArchive(
    job.root,
    job.entries,
    job.dest,
    (done) => post({ kind: "progress", done }),
    stopped.signal,
  ).then(
    ({ skillFiles, links }) => post({ kind: "done", skillFiles, links }),
    (error: unknown) => post({ kind: "failed", message: (error as Error).message ?? String(error) }),
  );
}
