#include "scripting/prelude.h"

namespace cosmos::scripting {

// Operations run synchronously in the host; their callbacks are queued and run once the code
// that issued them has returned, in issue order, as the service runs them. An operation that
// fails without a callback throws its error from the queue, which fails the script.
const char* const kPrelude = R"JS((function (host, log, global) {
  'use strict';

  let cur = null;  // the running stored procedure or trigger

  // The service's engine takes Error(number, message) as well as Error(message); err.number
  // becomes the response's substatus.
  const NativeError = global.Error;
  const CosmosError = function Error(...args) {
    const numbered = args.length >= 2 && typeof args[0] === 'number';
    const e = Reflect.construct(NativeError, numbered ? args.slice(1) : args, new.target || CosmosError);
    if (numbered) e.number = args[0];
    return e;
  };
  CosmosError.prototype = NativeError.prototype;
  Object.defineProperty(NativeError.prototype, 'constructor', { value: CosmosError, writable: true, configurable: true });
  Object.defineProperty(global, 'Error', { value: CosmosError, writable: true, configurable: true, enumerable: false });

  const ErrorCodes = Object.freeze({
    BadRequest: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, MethodNotAllowed: 405,
    RequestTimeout: 408, Conflict: 409, Gone: 410, PreconditionFailed: 412,
    RequestEntityTooLarge: 413, TooManyRequests: 429, RetryWith: 449,
    InternalServerError: 500, ServiceUnavailable: 503,
  });

  function running() {
    if (cur === null) throw new Error('The server-side API is not available here (user-defined functions are pure).');
    return cur;
  }

  function usage(message) {
    const e = new Error(message);
    e.number = ErrorCodes.BadRequest;
    throw e;
  }

  function operationError(e) {
    const err = new Error(e.message);
    err.number = e.number;
    if (e.substatus) err.substatus = e.substatus;
    err.body = JSON.stringify({ code: e.code, message: e.message });
    return err;
  }

  // (options, callback) in either order of presence: f(link, cb) or f(link, options, cb).
  function split(options, callback) {
    if (typeof options === 'function') return [{}, options];
    if (options !== undefined && options !== null && typeof options !== 'object') usage('The options argument must be an object.');
    if (callback !== undefined && callback !== null && typeof callback !== 'function') usage('The callback argument must be a function.');
    return [options || {}, callback || undefined];
  }

  function checkLink(link) {
    if (typeof link !== 'string' || link.length === 0) usage('The link argument must be a non-empty string.');
  }

  // Sends one operation; queues its callback. Returns whether the operation was accepted.
  function send(op, args, callback, shape) {
    const state = running();
    const reply = JSON.parse(host(op, JSON.stringify(args)));
    if (reply.throw) throw operationError(reply.throw);  // a bad link or argument fails at once
    if (reply.accepted === false) return false;
    const options = reply.options || {};
    if (reply.error) {
      const err = operationError(reply.error);
      state.queue.push(callback ? () => callback.call(collection, err, undefined, options) : () => { throw err; });
    } else if (callback) {
      const result = shape ? shape(reply.result) : reply.result;
      state.queue.push(() => callback.call(collection, undefined, result, options));
    }
    return true;
  }

  function newId() {
    const hex = (n) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(Math.random() * 4)]}${hex(3)}-${hex(12)}`;
  }

  // A document to write: an object or a JSON text of one; a missing id is generated unless the
  // options say not to.
  function documentBody(doc, options, generateId) {
    if (typeof doc === 'string') {
      try { doc = JSON.parse(doc); } catch (e) { doc = undefined; }
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      usage('The document body must be an object or a string representing a JSON-serialized object.');
    }
    if (generateId && !doc.id && options.disableAutomaticIdGeneration !== true) doc = Object.assign({}, doc, { id: newId() });
    return doc;
  }

  function unsupported(name) {
    return function () { usage(name + ' is not supported by this emulator.'); };
  }

  const collection = Object.freeze({
    getSelfLink() { return running().selfLink; },
    getAltLink() { return running().altLink; },
    createDocument(link, doc, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      doc = documentBody(doc, options, true);
      return send('create', { link, doc, options }, callback);
    },
    upsertDocument(link, doc, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      doc = documentBody(doc, options, true);
      return send('upsert', { link, doc, options }, callback);
    },
    replaceDocument(link, doc, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      doc = documentBody(doc, options, false);
      return send('replace', { link, doc, options }, callback);
    },
    readDocument(link, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      return send('read', { link, options }, callback);
    },
    readDocuments(link, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      return send('readFeed', { link, options }, callback);
    },
    deleteDocument(link, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      // The service calls back (error, responseOptions) here, without a result.
      const quirk = callback && ((err, result, responseOptions) => callback.call(collection, err, responseOptions));
      return send('delete', { link, options }, quirk);
    },
    queryDocuments(link, query, options, callback) {
      checkLink(link);
      if (typeof query === 'string') query = { query };
      if (query === null || typeof query !== 'object' || typeof query.query !== 'string') usage('The query must be a string or an object {query, parameters}.');
      [options, callback] = split(options, callback);
      return send('query', { link, query: { query: query.query, parameters: query.parameters || [] }, options }, callback);
    },
    createAttachment: unsupported('createAttachment'),
    readAttachment: unsupported('readAttachment'),
    readAttachments: unsupported('readAttachments'),
    replaceAttachment: unsupported('replaceAttachment'),
    upsertAttachment: unsupported('upsertAttachment'),
    deleteAttachment: unsupported('deleteAttachment'),
    queryAttachments: unsupported('queryAttachments'),
  });

  // getRequest() / getResponse(): the Body property with generated accessors, plus
  // getValue/setValue/appendValue by name. The request is read-only in post-triggers.
  function append(old, value) {
    if (typeof old === 'string') return old + value;
    if (old === undefined || old === null) return value;
    return old + value;
  }
  function message(kind) {
    const writable = () => kind === 'response' || running().kind !== 'post';
    const set = (name, value, how) => {
      const s = running();
      if (name !== 'Body') {
        const e = new NativeError(`Cannot set new values: ${name}`);
        e.number = ErrorCodes.BadRequest;
        throw e;
      }
      if (!writable()) {
        const e = new NativeError(`Not a writable property: ${name}`);
        e.number = ErrorCodes.Forbidden;
        throw e;
      }
      s[kind] = how === 'append' ? append(s[kind], value) : value;
      s[kind + 'Set'] = true;
    };
    const get = (name) => (name === 'Body' ? running()[kind] : undefined);
    const m = {
      getBody() { return get('Body'); },
      setBody(body) { set('Body', body, 'set'); },
      appendBody(body) { set('Body', body, 'append'); },
      getValue(name) { return get(name); },
      setValue(name, value) { set(name, value, 'set'); },
      appendValue(name, value) { set(name, value, 'append'); },
    };
    if (kind === 'request') m.getOperationType = () => running().operationType;
    return Object.freeze(m);
  }
  const request = message('request');
  const response = message('response');

  const context = Object.freeze({
    getCollection() { running(); return collection; },
    getRequest() { running(); return request; },
    getResponse() {
      if (running().kind === 'pre') throw new TypeError('getResponse is not available in a pre-trigger.');
      return response;
    },
    abort(err) { throw err; },
  });

  // The JavaScript query API: a pipeline over the logical partition's documents.
  function sortKey(selector, doc) {
    return typeof selector === 'function' ? selector(doc) : doc[selector];
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === undefined) return -1;
    if (b === undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const steps = {
    filter: (docs, predicate) => docs.filter((d) => predicate.call(null, d)),
    map: (docs, mapper) => docs.map((d) => mapper.call(null, d)),
    pluck: (docs, name) => docs.map((d) => (d === null || d === undefined ? undefined : d[name])),
    flatten: (docs, shallow) => (shallow ? [].concat(...docs.map((d) => (Array.isArray(d) ? d : [d]))) : docs),
    sortBy: (docs, selector) => docs.map((d, i) => [sortKey(selector, d), i, d])
      .sort((x, y) => compare(x[0], y[0]) || x[1] - y[1]).map((x) => x[2]),
    sortByDescending: (docs, selector) => docs.map((d, i) => [sortKey(selector, d), i, d])
      .sort((x, y) => compare(y[0], x[0]) || x[1] - y[1]).map((x) => x[2]),
    unwind: (docs, [collectionSelector, resultSelector]) => {
      const out = [];
      for (const d of docs) {
        const inner = collectionSelector(d);
        if (!Array.isArray(inner)) continue;
        for (const i of inner) out.push(resultSelector ? resultSelector(d, i) : { doc: d, inner: i });
      }
      return out;
    },
  };
  function checkStep(name, arg) {
    if ((name === 'filter' || name === 'map') && typeof arg !== 'function') usage('The predicate/transform function must be provided.');
    if (name === 'pluck' && (typeof arg !== 'string' || arg.length === 0)) usage('The property name must be a string and cannot be empty.');
    if ((name === 'sortBy' || name === 'sortByDescending') && typeof arg !== 'function' && typeof arg !== 'string') {
      usage('The predicate/transform function must be provided.');
    }
    if (name === 'unwind' && typeof arg[0] !== 'function') usage('The collection selector function must be provided.');
  }
  // Runs the pipeline over one page of the logical partition's documents. Without a callback the
  // result is appended to the response body (and an error thrown).
  function runPipeline(pipeline, options, callback) {
    [options, callback] = split(options, callback);
    const state = running();
    if (!callback) {
      if (state.kind === 'pre') usage('The callback function must be provided for scenarios, such as pre-trigger, when response object is not available.');
      callback = (err, result) => {
        if (err) throw err;
        response.appendBody(JSON.stringify(result));
      };
    }
    const accepted = send('readFeed', { link: state.selfLink, options }, callback,
      (docs) => pipeline.reduce((acc, s) => steps[s.name](acc, s.arg), docs));
    return { isAccepted: accepted };
  }
  function chain(pipeline) {
    const c = {
      value(options, callback) { return runPipeline(pipeline, options, callback); },
    };
    for (const name of Object.keys(steps)) {
      c[name] = (...args) => {
        if (args.length > (name === 'unwind' ? 2 : 1)) usage('When using "chain", options can only be provided on the call to the "value" function');
        const arg = name === 'unwind' ? args : args[0];
        checkStep(name, arg);
        return chain(pipeline.concat([{ name, arg }]));
      };
    }
    return Object.freeze(c);
  }
  const underscore = Object.assign({}, collection, {
    chain() { running(); return chain([]); },
    value(options, callback) { return runPipeline([], options, callback); },
  });
  for (const name of Object.keys(steps)) {
    underscore[name] = function (...args) {
      if (name === 'unwind') {
        const [collectionSelector, resultSelector, options, callback] = typeof args[1] === 'function' ? args : [args[0], undefined, args[1], args[2]];
        checkStep(name, [collectionSelector, resultSelector]);
        return runPipeline([{ name, arg: [collectionSelector, resultSelector] }], options, callback);
      }
      const [arg, options, callback] = args;
      checkStep(name, arg);
      return runPipeline([{ name, arg }], options, callback);
    };
  }
  Object.freeze(underscore);

  function format(value) {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    if (typeof value === 'function') return String(value);
    try { const s = JSON.stringify(value); return s === undefined ? String(value) : s; } catch (e) { return String(value); }
  }
  // console.log(format, ...values): %s takes the next value, %% is a percent sign; values left
  // over are appended with spaces. Output is kept only when the request asked for the script log.
  const console = Object.freeze({
    log(...args) {
      if (args.length === 0) usage('The function "log" requires at least 1 argument(s) but was called with 0 argument(s).');
      if (!running().logging) return;
      let text = format(args[0]);
      let next = 1;
      if (typeof args[0] === 'string') {
        text = args[0].replace(/%[s%]/g, (m) => (m === '%%' ? '%' : next < args.length ? format(args[next++]) : m));
      }
      for (; next < args.length; next++) text += ' ' + format(args[next]);
      log(text);
    },
  });

  for (const [name, value] of [['getContext', () => context], ['__', underscore], ['console', console], ['ErrorCodes', ErrorCodes]]) {
    Object.defineProperty(global, name, { value, writable: false, configurable: false, enumerable: false });
  }

  // Runs a stored procedure or trigger, then every queued callback; returns what it set, each as
  // JSON text: {response?, request?}.
  function invoke(fn, stateJson, paramsJson) {
    const st = JSON.parse(stateJson);
    cur = {
      kind: st.kind, selfLink: st.selfLink, altLink: st.altLink, operationType: st.operationType, logging: st.logging,
      request: st.request, requestSet: false, response: st.kind === 'sproc' ? '' : st.response, responseSet: false, queue: [],
    };
    try {
      const params = JSON.parse(paramsJson);
      fn.apply(global, Array.isArray(params) ? params : [params]);
      while (cur.queue.length > 0) cur.queue.shift()();
      const out = {};
      if (cur.kind === 'sproc' || cur.responseSet) out.response = JSON.stringify(cur.response);
      if (cur.requestSet) out.request = JSON.stringify(cur.request);
      return out;
    } finally {
      cur = null;
    }
  }

  function invokeUdf(fn, argsJson) {
    const result = fn.apply(undefined, JSON.parse(argsJson));
    if (result === undefined || typeof result === 'function' || typeof result === 'symbol') return undefined;
    return JSON.stringify(result);
  }

  return { invoke, invokeUdf };
}))JS";

}  // namespace cosmos::scripting
