/**
 * The build's one bundle of core (`dist/engine.js`): the engine and the merchant surface together, so
 * both entries share one copy of every class (`instanceof` holds whichever entry a class came from).
 * `dist/index.js` re-exports the merchant names from it; the types of each entry are its own source's.
 */

export * from './engine.js'
export * from './index.js'
