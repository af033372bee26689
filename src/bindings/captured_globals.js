// Prepended to the module (inside its factory): the constructors the engine's JavaScript uses while
// a call runs, bound as the module found them. A page that later replaces a global typed array
// then changes no result and throws through no C++ frame (where, in the threaded build, it would
// skip destructors). Functions on shared objects (JSON.parse, Object.defineProperty) are captured
// where they are used, in marshal.js.
var Float32Array = globalThis.Float32Array;
var Float64Array = globalThis.Float64Array;
var Int8Array = globalThis.Int8Array;
var Int16Array = globalThis.Int16Array;
var Int32Array = globalThis.Int32Array;
var Uint8Array = globalThis.Uint8Array;
var Uint16Array = globalThis.Uint16Array;
var Uint32Array = globalThis.Uint32Array;
