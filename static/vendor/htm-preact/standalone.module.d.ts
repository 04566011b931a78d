// Types of standalone.module.js, for tsc only (the page never loads this file): htm's own
// declaration of its Preact build (htm/preact/index.d.ts covers the standalone build too), on
// Preact 10's types. Both come from npm as pinned in package.json.
export * from "htm/preact";
