/**
 * Worker-thread entry of `streamArchiveOffThread`: writes one archive with `streamArchive` and posts its
 * progress and outcome to the parent.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ArchiveJob, type ArchiveMessage, streamArchive } from "./write.js";

const port = parentPort;
if (port) {
  const job = workerData as ArchiveJob;
  const post = (message: ArchiveMessage) => port.postMessage(message);
  streamArchive(job.root, job.entries, job.dest, (done) => post({ kind: "progress", done })).then(
    ({ skillFiles, links }) => post({ kind: "done", skillFiles, links }),
    (error: unknown) => post({ kind: "failed", message: (error as Error).message ?? String(error) }),
  );
}
