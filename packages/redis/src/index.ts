/** `@paywire/redis`: core's intent journal and callback inbox store on Redis, shared by every instance of a service. */

export { RedisClaimStore } from './claim-store.js'
export type { RedisClient, RedisSetOptions, RedisStoreOptions, RedisTransaction } from './client.js'
export type { JournalOrphan, RedisIntentStoreOptions } from './intent-store.js'
export { RedisIntentStore } from './intent-store.js'
