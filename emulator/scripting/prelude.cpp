#include "scripting/prelude.h"

namespace cosmos::scripting {

// Operations run synchronously in the host; their callbacks are queued and run once the code
// that issued them has returned, in issue order, as the service runs them. An operation that
// fails without a callback throws its error from the queue, which fails the script.
const char* const kPrelude = R"JS((function (host, log, global) {
  'use strict';

  let cur = null;  // the running stored procedure or trigger

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

  function unsupported(name) {
    return function () { usage(name + ' is not supported by this emulator.'); };
  }

  const collection = Object.freeze({
    getSelfLink() { return running().selfLink; },
    getAltLink() { return running().altLink; },
    createDocument(link, doc, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      return send('create', { link, doc, options }, callback);
    },
    upsertDocument(link, doc, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
      return send('upsert', { link, doc, options }, callback);
    },
    replaceDocument(link, doc, options, callback) {
      checkLink(link);
      [options, callback] = split(options, callback);
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
      return send('delete', { link, options }, callback);
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

  function serialise(value) {
    if (value === undefined) return undefined;
    return JSON.stringify(value);
  }

  function message(kind) {
    return Object.freeze({
      getBody() { return running()[kind]; },
      setBody(body) { const s = running(); s[kind] = body; s[kind + 'Set'] = true; },
      getValue() { return running()[kind]; },
      setValue(body) { const s = running(); s[kind] = body; s[kind + 'Set'] = true; },
      appendBody(text) {
        const s = running();
        s[kind] = (s[kind] === undefined ? '' : String(s[kind])) + String(text);
        s[kind + 'Set'] = true;
      },
      appendValue(text) { this.appendBody(text); },
      getMaxResponseBodySize() { return 2 * 1024 * 1024; },
      getOperationType() { return running().operationType; },
    });
  }
  const request = message('request');
  const response = message('response');

  const context = Object.freeze({
    getCollection() { running(); return collection; },
    getRequest() { running(); return request; },
    getResponse() { running(); return response; },
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
    flatten: (docs, shallow) => docs.flat(shallow ? 1 : Infinity),
    sortBy: (docs, selector) => docs.map((d, i) => [sortKey(selector, d), i, d])
      .sort((x, y) => compare(x[0], y[0]) || x[1] - y[1]).map((x) => x[2]),
    sortByDescending: (docs, selector) => docs.map((d, i) => [sortKey(selector, d), i, d])
      .sort((x, y) => compare(y[0], x[0]) || x[1] - y[1]).map((x) => x[2]),
  };
  function checkStep(name, arg) {
    if ((name === 'filter' || name === 'map') && typeof arg !== 'function') usage('__.' + name + ' needs a function.');
    if (name === 'pluck' && typeof arg !== 'string') usage('__.pluck needs a property name.');
    if ((name === 'sortBy' || name === 'sortByDescending') && typeof arg !== 'function' && typeof arg !== 'string') {
      usage('__.' + name + ' needs a function or a property name.');
    }
  }
  function runPipeline(pipeline, options, callback) {
    [options, callback] = split(options, callback);
    const state = running();
    const accepted = send('readFeed', { link: state.selfLink, options }, callback,
      (docs) => pipeline.reduce((acc, s) => steps[s.name](acc, s.arg), docs));
    return { isAccepted: accepted };
  }
  function chain(pipeline) {
    const c = { value(options, callback) { return runPipeline(pipeline, options, callback); } };
    for (const name of Object.keys(steps)) {
      c[name] = (arg) => { checkStep(name, arg); return chain(pipeline.concat([{ name, arg }])); };
    }
    return Object.freeze(c);
  }
  const underscore = Object.assign({}, collection, {
    chain() { running(); return chain([]); },
    value(options, callback) { return runPipeline([], options, callback); },
  });
  for (const name of Object.keys(steps)) {
    underscore[name] = function (arg, options, callback) {
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
  const console = Object.freeze({
    log(...args) { log(args.map(format).join(' ')); },
  });

  for (const [name, value] of [['getContext', () => context], ['__', underscore], ['console', console], ['ErrorCodes', ErrorCodes]]) {
    Object.defineProperty(global, name, { value, writable: false, configurable: false, enumerable: false });
  }

  // Runs a stored procedure or trigger, then every queued callback; returns what it set.
  function invoke(fn, stateJson, paramsJson) {
    const st = JSON.parse(stateJson);
    cur = {
      selfLink: st.selfLink, altLink: st.altLink, operationType: st.operationType,
      request: st.request, requestSet: false, response: st.response, responseSet: false, queue: [],
    };
    try {
      const params = JSON.parse(paramsJson);
      fn.apply(global, Array.isArray(params) ? params : [params]);
      while (cur.queue.length > 0) cur.queue.shift()();
      const out = {};
      if (cur.responseSet) out.response = serialise(cur.response);
      if (cur.requestSet) out.request = serialise(cur.request);
      return JSON.stringify(out);
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
