// The JavaScript half of marshal.cpp (an Emscripten library). Each function reads a caller's value
// once, and turns anything the caller's code throws (a getter, a proxy trap, toJSON) into a
// returned {error}: a JavaScript exception must never cross C++ frames, whose destructors it
// would skip. Results are {value} or {error: "reason"} handles, owned by the C++ caller, where
// the reason completes a sentence that starts with the value's name.
mergeInto(LibraryManager.library, {
  // what is wrong with a value, said by this library (anything else thrown is the caller's)
  $AttnlabProblem: function(reason) {
    this.reason = reason;
  },

  $attnlabOutcome__deps: ['$Emval', '$AttnlabProblem'],
  $attnlabOutcome: function(read) {
    try {
      return Emval.toHandle({ value: read() });
    } catch (e) {
      var reason;
      try {
        reason = e instanceof AttnlabProblem ? e.reason
                                             : 'could not be read (' + (e instanceof Error ? String(e.message) : String(e)) + ')';
      } catch (_) {
        reason = 'could not be read (an exception)';
      }
      return Emval.toHandle({ error: reason });
    }
  },

  // the kind and length of a real typed array, from its internal slots (which no getter, subclass
  // or look-alike object can fake), or null
  $attnlabTypedArray: function(value) {
    var typedArray = Object.getPrototypeOf(Int8Array.prototype);
    var kind = Object.getOwnPropertyDescriptor(typedArray, Symbol.toStringTag).get.call(value);
    if (kind === undefined) return null;
    return { kind: kind, length: Object.getOwnPropertyDescriptor(typedArray, 'length').get.call(value) };
  },

  attnlab_js_property__deps: ['$attnlabOutcome', '$Emval'],
  attnlab_js_property: function(object, key) {
    return attnlabOutcome(function() { return Emval.toValue(object)[UTF8ToString(key)]; });
  },

  // JSON.stringify(object[key]), read once: a string, undefined for what JSON cannot hold, null
  // when the key is absent (undefined or null)
  attnlab_js_json__deps: ['$attnlabOutcome', '$Emval', '$attnlabStringify'],
  attnlab_js_json: function(object, key) {
    return attnlabOutcome(function() {
      var value = Emval.toValue(object)[UTF8ToString(key)];
      return value === undefined || value === null ? null : attnlabStringify(value);
    });
  },

  // JSON's functions as the module found them: a page that replaces them later neither changes a
  // result nor throws through C++ frames (the typed arrays are bound in captured_globals.js)
  $attnlabStringify: '=JSON.stringify',
  $attnlabParse: '=JSON.parse',

  // JSON.parse of the engine's own JSON (a UTF-8 C string)
  attnlab_js_parse_json__deps: ['$Emval', '$attnlabParse'],
  attnlab_js_parse_json: function(text) {
    return Emval.toHandle(attnlabParse(UTF8ToString(text)));
  },

  // a copy of `count` entries at data as a Float32Array (kind 0), Int32Array (1) or Uint8Array (2):
  // a view of the heap, then a copy of it (no species lookup on the way)
  attnlab_js_typed_copy__deps: ['$Emval'],
  attnlab_js_typed_copy: function(data, count, kind) {
    var Type = [Float32Array, Int32Array, Uint8Array][kind];
    return Emval.toHandle(new Type(new Type(HEAPU8.buffer, data >>> 0, count)));
  },

  // the string with each lone UTF-16 surrogate replaced by U+FFFD, so that its UTF-8 is valid
  attnlab_js_well_formed__deps: ['$Emval'],
  attnlab_js_well_formed: function(text) {
    return Emval.toHandle(Emval.toValue(text).replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
  },

  // Copies a typed array or an array-like of numbers into `capacity` floats (elementBytes 4) or
  // doubles (8) at target. The value is its length, read once; nothing is copied when it exceeds
  // capacity. The error names a value that is no array of numbers, or its first entry that is not
  // a number.
  attnlab_js_numbers__deps: ['$attnlabOutcome', '$attnlabTypedArray', '$Emval', '$AttnlabProblem'],
  attnlab_js_numbers: function(source, target, capacity, elementBytes) {
    return attnlabOutcome(function() {
      var value = Emval.toValue(source);
      var notNumbers = 'must be a Float32Array or an array of numbers';
      if (value === null || typeof value !== 'object') throw new AttnlabProblem(notNumbers);
      var typed = attnlabTypedArray(value);
      if (typed && typed.kind.indexOf('Big') === 0) throw new AttnlabProblem('must hold numbers, not BigInts');
      var length = typed ? typed.length : value.length;
      if (!Number.isSafeInteger(length) || length < 0) throw new AttnlabProblem(notNumbers);
      if (length > capacity) return length;
      var numbers = value;
      if (!typed) {
        // a private copy first: the entries' getters run before anything is written to the heap
        numbers = new Float64Array(length);
        for (var i = 0; i < length; i++) {
          var x = value[i];
          if (typeof x !== 'number') throw new AttnlabProblem('has a non-number at [' + i + '] (' + (x === null ? 'null' : typeof x) + ')');
          numbers[i] = x;
        }
      }
      if (elementBytes === 4) HEAPF32.set(numbers, target >> 2);
      else HEAPF64.set(numbers, target >> 3);
      return length;
    });
  },

  // The length of a Uint8Array (a real one); its bytes are copied to target when it fits capacity.
  attnlab_js_bytes__deps: ['$attnlabOutcome', '$attnlabTypedArray', '$Emval', '$AttnlabProblem'],
  attnlab_js_bytes: function(source, target, capacity) {
    return attnlabOutcome(function() {
      var value = Emval.toValue(source);
      var typed = value !== null && typeof value === 'object' ? attnlabTypedArray(value) : null;
      if (!typed || typed.kind !== 'Uint8Array') throw new AttnlabProblem('must be a Uint8Array');
      if (typed.length <= capacity) HEAPU8.set(value, target);
      return typed.length;
    });
  },

  // Embind's val::set (every result object is built with it), writing an own data property
  // instead of assigning: an assignment runs a setter that the page defined for that key on
  // Object.prototype, whose exception would cross C++ frames (skipping their destructors with
  // JavaScript-based exceptions). Object.defineProperty as the module found it. (Embind's own
  // argument conversions still push onto arrays, so index setters on Array.prototype remain the
  // page's to avoid.)
  $attnlabDefine: '=Object.defineProperty',
  _emval_set_property__sig: 'viii',
  _emval_set_property__deps: ['$Emval', '$attnlabDefine'],
  _emval_set_property: function(handle, key, value) {
    attnlabDefine(Emval.toValue(handle), Emval.toValue(key),
                  { value: Emval.toValue(value), writable: true, enumerable: true, configurable: true });
  },

  // Throws a JS Error with the message at `message`, which it frees: no C++ frame holds memory
  // when the exception leaves.
  attnlab_js_throw__deps: ['free'],
  attnlab_js_throw: function(message) {
    var text = message ? UTF8ToString(message) : 'attnlab: out of memory';
    _free(message);
    throw new Error(text);
  },
});
