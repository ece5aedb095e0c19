/**
 * Group commit for read-only work that many chats ask for at once (`curator status` over a 10k library
 * costs ~100 ms of CPU). A request never receives a result computed before it arrived: while one
 * computation for a key runs, every request for that key joins the single computation that starts
 * right after it. Under a burst of N requests the work runs about twice instead of N times, and each
 * answer still reflects the disk as it was after the request came in.
 */
export class CoalescedWork<K, V> {
  private readonly slots = new Map<K, { running: Promise<V>; next?: Promise<V> }>();

  /** `compute()` run for this request or shared with the others that arrived while one was running. */
  run(key: K, compute: () => Promise<V>): Promise<V> {
    const slot = this.slots.get(key);
    if (!slot) return this.start(key, compute);
    // Join the computation queued behind the running one (it starts after this request arrived).
    slot.next ??= slot.running.then(
      () => this.start(key, compute),
      () => this.start(key, compute),
    );
    return slot.next;
  }

  private start(key: K, compute: () => Promise<V>): Promise<V> {
    const running = Promise.resolve().then(compute);
    this.slots.set(key, { running });
    const release = () => {
      const slot = this.slots.get(key);
      // A queued computation took the slot over when it started; only the last one clears it.
      if (slot?.running === running && !slot.next) this.slots.delete(key);
    };
    running.then(release, release);
    return running;
  }
}
