// For tsc only (the page never loads this file): importing Sortable.min.js as a module gives
// nothing; its UMD build sets `window.Sortable` (static/js/globals.d.ts types it).
export {};
