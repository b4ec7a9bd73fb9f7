/** A bounded map of what the client keeps per origin or host name (TLS sessions, lookups). */

/** Sets `key` as the newest entry of `map`, dropping the oldest beyond `most` (a Map keeps insertion order). */
export function keepNewest<K, V>(map: Map<K, V>, key: K, value: V, most: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > most) map.delete(map.keys().next().value as K)
}
