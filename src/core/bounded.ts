/**
 * Insertion-ordered bounds: the one place that forgets the oldest entries of a `Map` or `Set` used as
 * a bounded memory (seen ids, caches, remembered strangers).
 */

/** A `Map` or `Set`: iterates keys oldest first (insertion order) and deletes by key. */
interface InsertionOrdered<K> {
  readonly size: number;
  keys(): IterableIterator<K>;
  delete(key: K): boolean;
}

/** Forgets the oldest entries of `collection` until it holds at most `max`. */
export function trimOldest<K>(collection: InsertionOrdered<K>, max: number): void {
  const keys = collection.keys();
  while (collection.size > Math.max(0, max)) {
    const oldest = keys.next();
    if (oldest.done) return;
    collection.delete(oldest.value);
  }
}
