import { inspect } from 'util';
import requestOnDispatcher from 'undici/lib/api/api-request.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import { randomUUID } from 'crypto';
import { isIP } from 'net';

// src/answers.ts
var ADVICE = "pass a schema to accept another shape";
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
function holds(kind, value) {
  if (value === null) return true;
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "string or number":
      return typeof value === "string" || typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "list of strings or numbers":
      return Array.isArray(value) && value.every((item) => typeof item === "string" || typeof item === "number");
  }
}
function fieldProblem(record, kinds, at) {
  for (const [field, kind] of Object.entries(kinds)) {
    if (!Object.hasOwn(record, field)) continue;
    const value = record[field];
    if (!holds(kind, value)) return `${at}${field} is ${describe(value)}, not a ${kind}`;
  }
  return void 0;
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function recordAnswer(kinds) {
  return (value, reject) => {
    if (value === void 0 || value === null) return void 0;
    if (!isRecord(value)) reject(`a JSON object (or no body) was expected, not ${describe(value)}; ${ADVICE}`);
    const problem = fieldProblem(value, kinds, "");
    if (problem !== void 0) reject(`${problem}; ${ADVICE}`);
    return value;
  };
}
function listAnswer(kinds) {
  return (value, reject) => {
    if (value === void 0 || value === null) return void 0;
    if (!Array.isArray(value)) reject(`a JSON array (or no body) was expected, not ${describe(value)}; ${ADVICE}`);
    for (const [index, item] of value.entries()) {
      if (!isRecord(item)) reject(`item ${index} is ${describe(item)}, not a JSON object; ${ADVICE}`);
      const problem = fieldProblem(item, kinds, `item ${index}: `);
      if (problem !== void 0) reject(`${problem}; ${ADVICE}`);
    }
    return value;
  };
}

// src/api-promise.ts
var ApiPromise = class _ApiPromise extends Promise {
  #inner;
  constructor(inner) {
    super((resolve) => resolve(void 0));
    this.#inner = inner;
  }
  static get [Symbol.species]() {
    return Promise;
  }
  /** A call refused before anything was sent (validation): it rejects like any failed call. */
  static rejected(error) {
    return new _ApiPromise(Promise.reject(error));
  }
  /** The same call with its result mapped; `.withResponse()` keeps working. */
  map(transform) {
    return new _ApiPromise(this.#inner.then(({ data, response }) => ({ data: transform(data), response })));
  }
  /** The same call with its error replaced or enriched (e.g. with a reconciliation key). */
  mapError(transform) {
    return new _ApiPromise(
      this.#inner.catch((error) => {
        throw transform(error);
      })
    );
  }
  /** The result together with the answer it came from. */
  withResponse() {
    return this.#inner;
  }
  // biome-ignore lint/suspicious/noThenProperty: this class is a Promise; `then` must map the inner result.
  then(onfulfilled, onrejected) {
    const unwrap = onfulfilled ? (result) => onfulfilled(result.data) : (result) => result.data;
    return this.#inner.then(unwrap, onrejected);
  }
};

// src/errors.ts
var BRAND_PREFIX = "@paywire/error:";
function brandErrorClass(cls, brand) {
  const symbol = /* @__PURE__ */ Symbol.for(BRAND_PREFIX + brand);
  Object.defineProperty(cls.prototype, symbol, { value: true, enumerable: false });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(value) {
      return typeof value === "object" && value !== null && value[symbol] === true;
    }
  });
}
var PaywireError = class extends Error {
  name = "PaywireError";
  /**
   * True when the call may have moved money and nobody knows whether it did: an operation that is
   * not safe to repeat reached the service (or may have) and no definite answer came back. Do not
   * repeat it blindly: reconcile first with `reconciliation.lookup`.
   */
  outcomeUnknown;
  /** The key and lookup to reconcile this call with, when the operation has one. */
  reconciliation;
  /**
   * The idempotency key every attempt of the call carried (bill payment's `Idempotency-Key`,
   * remittance's `agentTransactionRef`); repeat an unknown outcome with the same key.
   */
  idempotencyKey;
  /**
   * Wall-clock time the error was raised (ms since the epoch): reconciliation counts from it, since
   * a request can still reach the service for a while after its caller gave up on it.
   */
  occurredAt = Date.now();
  constructor(message, options = {}) {
    super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
    this.outcomeUnknown = options.outcomeUnknown ?? false;
    this.reconciliation = options.reconciliation;
    this.idempotencyKey = options.idempotencyKey;
  }
};
brandErrorClass(PaywireError, "PaywireError");
var RequestValidationError = class extends PaywireError {
  name = "RequestValidationError";
  /** The operation (`checkout.purchase`), or the client (`CardGateway`) whose options were refused. */
  operation;
  issues;
  stage;
  /** Always false: validation happens before sending. */
  requestSent = false;
  constructor(operation, issues, stage = "request") {
    const list = issues.map((issue) => `${issue.path || "(params)"}: ${issue.message}`).join("; ");
    const what = stage === "options" ? "invalid client options" : "invalid request, nothing was sent";
    super(`${operation}: ${what}. ${list}`);
    this.operation = operation;
    this.issues = issues;
    this.stage = stage;
  }
};
brandErrorClass(RequestValidationError, "RequestValidationError");
function unknownOutcome(request, mayHaveActed) {
  if (request.retry === void 0 || request.retry.kind === "safe") return false;
  return mayHaveActed || request.earlierAttemptMayHaveActed === true;
}
function statusMayHaveActed(status) {
  return status < 400 || status >= 500;
}
function reconcileAdvice(request) {
  const how = request.reconciliation ? `reconcile with ${request.reconciliation.lookup} before repeating it` : "reconcile with a status lookup before repeating it";
  const which = request.earlierAttemptMayHaveActed ? "an earlier attempt of" : "";
  return `Outcome unknown: the service may have acted on ${which || "this"} ${request.operation}; ${how}.`;
}
function sentAdvice(request, requestSent, mayHaveActed) {
  if (unknownOutcome(request, mayHaveActed)) return reconcileAdvice(request);
  if (!requestSent) return "The request was not sent.";
  if (request.retry !== void 0 && request.retry.kind !== "safe") {
    return "The service answered an earlier attempt without acting on it; it is safe to repeat.";
  }
  return "The request may have reached the service; it is safe to repeat.";
}
var ApiError = class extends PaywireError {
  name = "ApiError";
  status;
  code;
  body;
  rawBody;
  headers;
  requestId;
  operation;
  method;
  url;
  attempts;
  /** The service answered, so the request certainly arrived. */
  requestSent = true;
  constructor(init) {
    const outcomeUnknown = unknownOutcome(init, init.mayHaveActed ?? statusMayHaveActed(init.response.status));
    super(outcomeUnknown ? `${init.message} ${reconcileAdvice(init)}` : init.message, {
      outcomeUnknown,
      reconciliation: init.reconciliation,
      idempotencyKey: init.idempotencyKey
    });
    this.status = init.response.status;
    this.code = init.code;
    this.body = init.body;
    this.rawBody = init.response.rawBody;
    this.headers = init.response.headers;
    this.requestId = init.response.requestId;
    this.operation = init.operation;
    this.method = init.method;
    this.url = init.url;
    this.attempts = init.response.attempts;
  }
};
brandErrorClass(ApiError, "ApiError");
var ConnectionError = class extends PaywireError {
  name = "ConnectionError";
  requestSent;
  operation;
  method;
  url;
  attempts;
  constructor(init) {
    const mayHaveActed = init.mayHaveActed ?? init.requestSent;
    super(`${init.message} ${sentAdvice(init, init.requestSent, mayHaveActed)}`, {
      cause: init.cause,
      outcomeUnknown: unknownOutcome(init, mayHaveActed),
      reconciliation: init.reconciliation,
      idempotencyKey: init.idempotencyKey
    });
    this.requestSent = init.requestSent;
    this.operation = init.operation;
    this.method = init.method;
    this.url = init.url;
    this.attempts = init.attempts;
  }
};
brandErrorClass(ConnectionError, "ConnectionError");
var TimeoutError = class extends ConnectionError {
  name = "TimeoutError";
  phase;
  timeoutMs;
  constructor(init) {
    const what = {
      connect: "connecting",
      headers: "waiting for the response headers",
      body: "reading the response body",
      total: "the whole call (total deadline across retries)",
      window: "because a retry must arrive inside the dedup window of the first attempt"
    }[init.phase];
    super({ ...init, message: `${init.operation}: timed out after ${init.timeoutMs} ms ${what}.` });
    this.phase = init.phase;
    this.timeoutMs = init.timeoutMs;
  }
};
brandErrorClass(TimeoutError, "TimeoutError");
var ResponseTooLargeError = class extends ConnectionError {
  name = "ResponseTooLargeError";
  limitBytes;
  status;
  constructor(init) {
    super({
      ...init,
      requestSent: true,
      message: `${init.operation}: the response body exceeded ${init.limitBytes} bytes (maxResponseBytes); the connection was closed.`
    });
    this.limitBytes = init.limitBytes;
    this.status = init.status;
  }
};
brandErrorClass(ResponseTooLargeError, "ResponseTooLargeError");
var UserAbortError = class extends PaywireError {
  name = "UserAbortError";
  operation;
  /** Whether the request (this attempt or an earlier one) may already have reached the service. */
  requestSent;
  constructor(init) {
    const mayHaveActed = init.mayHaveActed ?? init.requestSent;
    super(`${init.operation}: aborted by the caller's signal. ${sentAdvice(init, init.requestSent, mayHaveActed)}`, {
      cause: init.cause,
      outcomeUnknown: unknownOutcome(init, mayHaveActed),
      reconciliation: init.reconciliation,
      idempotencyKey: init.idempotencyKey
    });
    this.operation = init.operation;
    this.requestSent = init.requestSent;
  }
};
brandErrorClass(UserAbortError, "UserAbortError");
var SignatureVerificationError = class extends PaywireError {
  name = "SignatureVerificationError";
  reason;
  diagnostic;
  constructor(reason, message, diagnostic = {}) {
    super(message);
    this.reason = reason;
    this.diagnostic = diagnostic;
  }
};
brandErrorClass(SignatureVerificationError, "SignatureVerificationError");
var REDACTED = "[redacted]";
var Secret = class {
  #value;
  constructor(value) {
    this.#value = value;
  }
  /** The credential itself; call only where it is used (a header, a hash input). */
  reveal() {
    return this.#value;
  }
  toString() {
    return REDACTED;
  }
  toJSON() {
    return REDACTED;
  }
  [inspect.custom]() {
    return `Secret(${REDACTED})`;
  }
};
var SECRET_HEADERS = /* @__PURE__ */ new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  // RFC 2965's cookie-setting header: obsolete, still sent by some stacks, a session credential all the same.
  "set-cookie2",
  "x-code",
  "x-service-client-secret",
  // Not a secret by the service, but an account identifier: logs do not need it.
  "x-service-internal-client-id",
  "x-api-key"
]);
function isSecretHeader(name) {
  return SECRET_HEADERS.has(name.toLowerCase());
}
var REDACTED_VALUE = REDACTED;
function redactHeaders(headers) {
  const safe2 = {};
  for (const [name, value] of Object.entries(headers)) {
    safe2[name] = isSecretHeader(name) ? REDACTED : value;
  }
  return safe2;
}

// src/credentials.ts
var CONTROL = /[\u0000-\u001f\u007f]/;
var VISIBLE_ASCII = /^[\x21-\x7e]+$/;
function credentialIssue(name, value, use) {
  const text = value instanceof Secret ? value.reveal() : value;
  if (typeof text !== "string" || text.trim() === "") {
    return { path: name, message: "is required: a non-empty string or a Secret" };
  }
  if (use === "header" && !VISIBLE_ASCII.test(text)) {
    return {
      path: name,
      message: "must be visible ASCII characters only (it is sent as a header: no spaces or line breaks)"
    };
  }
  if (CONTROL.test(text)) return { path: name, message: "must not contain control characters" };
  if (text.trim() !== text) {
    return { path: name, message: "must not begin or end with whitespace (a copy-paste leftover?)" };
  }
  return void 0;
}
function readCredentials(client, options, credentials) {
  const given = typeof options === "object" && options !== null ? options : {};
  const issues = [];
  const secrets = {};
  for (const [name, use] of Object.entries(credentials)) {
    const value = given[name];
    const issue = credentialIssue(name, value, use);
    if (issue) issues.push(issue);
    else secrets[name] = value instanceof Secret ? value : new Secret(value);
  }
  if (issues.length > 0) throw new RequestValidationError(client, issues, "options");
  return secrets;
}

// src/encode.ts
var JSON_TYPE = "application/json";
var FORM_TYPE = "application/x-www-form-urlencoded";
function jsonBody(value) {
  return { contentType: JSON_TYPE, text: JSON.stringify(value) };
}
function formBody(fields) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== void 0) params.append(name, value);
  }
  return { contentType: FORM_TYPE, text: params.toString() };
}
function withQuery(url, query) {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) if (v !== void 0 && v !== null) params.append(name, String(v));
  }
  const text = params.toString();
  return text ? `${url}${url.includes("?") ? "&" : "?"}${text}` : url;
}

// src/attempt-failure.ts
var UNSENT_CODES = /* @__PURE__ */ new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "EAI_FAIL",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  // undici refused the request's own arguments before writing anything.
  "UND_ERR_INVALID_ARG",
  // The dispatcher was closed before this request was handed to it: dispatch refuses at once.
  "UND_ERR_CLOSED",
  // undici refused a feature the request asked for (such as an `Expect` header) before writing.
  "UND_ERR_NOT_SUPPORTED"
]);
function errorCode(error) {
  if (typeof error !== "object" || error === null) return void 0;
  const e = error;
  if (typeof e.code === "string") return e.code;
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return e.cause === void 0 ? void 0 : errorCode(e.cause);
}
function interimStatusOf(error) {
  if (!(error instanceof Error) || errorCode(error) !== "UND_ERR_SOCKET") return void 0;
  if (error.message === "bad response") return 100;
  if (error.message === "bad upgrade") return 101;
  return void 0;
}
function describeConnectionFailure(error, code, interimStatus) {
  if (interimStatus === 100) {
    return "connection failed: the server sent an interim 100 Continue nobody asked for and undici dropped the connection before the final answer";
  }
  if (interimStatus === 101) {
    return "connection failed: the server switched protocols (101) without being asked and undici dropped the connection";
  }
  if (interimStatus !== void 0) {
    return `connection failed after an interim ${interimStatus} answer, before the final answer (${code ?? "no code"})`;
  }
  const detail = error instanceof Error ? error.message : String(error);
  return `connection failed (${code ?? detail})`;
}
function classifyFailure(error, plan, how) {
  const { budget, signal: userSignal, priorArrival } = plan;
  const info = { ...plan.request, attempts: plan.attempt };
  const code = errorCode(error);
  const mayHaveArrived = !UNSENT_CODES.has(code ?? "");
  const sent = { requestSent: mayHaveArrived || priorArrival, mayHaveActed: mayHaveArrived };
  const failure = how.interimStatus === void 0 ? { kind: "connection", requestSent: mayHaveArrived } : { kind: "interim", status: how.interimStatus };
  if (how.abortedBy === "user") {
    const abortError = new UserAbortError({ ...info, ...sent, cause: userSignal?.reason });
    return { ok: false, error: abortError, failure: void 0, mayHaveArrived };
  }
  if (how.abortedBy === "timeout" || code === "UND_ERR_CONNECT_TIMEOUT") {
    const phase = code === "UND_ERR_CONNECT_TIMEOUT" ? "connect" : budget.phase ?? how.phase;
    const timeoutError = new TimeoutError({ ...info, ...sent, phase, timeoutMs: budget.ms, cause: error });
    return { ok: false, error: timeoutError, failure, mayHaveArrived };
  }
  const connectionError = new ConnectionError({
    ...info,
    ...sent,
    cause: error,
    message: `${info.operation}: ${describeConnectionFailure(error, code, how.interimStatus)}.${priorArrival && !mayHaveArrived ? " An earlier attempt may have reached the service." : ""}`
  });
  return { ok: false, error: connectionError, failure, mayHaveArrived };
}

// src/clock.ts
var systemClock = {
  now: () => performance.now(),
  date: () => Date.now(),
  sleep: (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  })
};
var MAX_TIMER_MS = 2 ** 31 - 1;

// src/deadlines.ts
var AttemptSignal = class {
  /** Read by undici before it starts: a signal aborted already fails the request at once. */
  aborted = false;
  abortedBy = void 0;
  /** Monotonic ms at which the attempt is aborted as timed out. */
  deadline;
  #listener = void 0;
  /** @internal links of the deadline chain */
  previous = void 0;
  /** @internal */
  next = void 0;
  /** @internal */
  chain = void 0;
  constructor(deadline) {
    this.deadline = deadline;
  }
  on(_event, listener) {
    this.#listener = listener;
    return this;
  }
  once(event, listener) {
    return this.on(event, listener);
  }
  removeListener(_event, listener) {
    if (this.#listener === listener) this.#listener = void 0;
    return this;
  }
  /** Aborts the attempt (first cause wins); undici then fails it with its abort error. */
  abort(cause) {
    if (this.aborted) return;
    this.aborted = true;
    this.abortedBy = cause;
    const listener = this.#listener;
    this.#listener = void 0;
    listener?.();
  }
};
var DeadlineList = class {
  #now;
  #chains = /* @__PURE__ */ new Map();
  #timer = void 0;
  #armedFor = Number.POSITIVE_INFINITY;
  /** `now` is the monotonic clock the deadlines are read on. */
  constructor(now = () => performance.now()) {
    this.#now = now;
  }
  /** Attempts registered and not yet finished (tests: nothing may outlive its attempt). */
  get pending() {
    let count = 0;
    for (const chain of this.#chains.values()) for (let s = chain.head; s; s = s.next) count++;
    return count;
  }
  /** A signal that aborts itself `timeoutMs` from now, unless `finish`ed first. */
  start(timeoutMs) {
    const signal = new AttemptSignal(this.#now() + timeoutMs);
    let chain = this.#chains.get(timeoutMs);
    if (!chain) {
      chain = { head: void 0, tail: void 0 };
      this.#chains.set(timeoutMs, chain);
    }
    signal.chain = chain;
    signal.previous = chain.tail;
    if (chain.tail) chain.tail.next = signal;
    else chain.head = signal;
    chain.tail = signal;
    if (signal.deadline < this.#armedFor) this.#arm(signal.deadline);
    return signal;
  }
  /** The attempt ended: its entry leaves the list (the timer, if armed for it, finds the next one). */
  finish(signal) {
    const chain = signal.chain;
    if (!chain) return;
    if (signal.previous) signal.previous.next = signal.next;
    else chain.head = signal.next;
    if (signal.next) signal.next.previous = signal.previous;
    else chain.tail = signal.previous;
    signal.chain = void 0;
    signal.previous = void 0;
    signal.next = void 0;
  }
  #arm(deadline) {
    clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#timer = setTimeout(this.#fire, Math.max(0, Math.ceil(deadline - this.#now())));
    this.#timer.unref();
  }
  #fire = () => {
    this.#timer = void 0;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.#now();
    let next = Number.POSITIVE_INFINITY;
    for (const [timeoutMs, chain] of this.#chains) {
      while (chain.head && chain.head.deadline <= now) {
        const expired = chain.head;
        this.finish(expired);
        expired.abort("timeout");
      }
      if (chain.head) next = Math.min(next, chain.head.deadline);
      else this.#chains.delete(timeoutMs);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  };
};

// src/headers.ts
var REQUEST_ID_HEADERS = ["x-request-id", "request-id", "x-correlation-id", "x-amzn-requestid"];
var TRANSPORT_HEADERS = /* @__PURE__ */ new Set([
  "connection",
  "content-length",
  "expect",
  "keep-alive",
  "transfer-encoding",
  "upgrade"
]);
var HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
var HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
function managedHeaderIssues(sdkHeaders, extra) {
  if (extra === void 0) return [];
  const managed = new Set(Object.keys(sdkHeaders).map((name) => name.toLowerCase()));
  return Object.keys(extra).filter((name) => managed.has(name.toLowerCase())).map((name) => ({
    path: `headers.${name}`,
    message: "is set by the SDK for this operation (credentials come from the client options, an idempotency key from the idempotencyKey option); it cannot be set per call"
  }));
}
function headerIssues(headers) {
  const issues = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) issues.push({ path: `headers.${name}`, message: "is not a valid header name" });
    else if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
      issues.push({ path: `headers.${name}`, message: "is set by the transport from the request itself; remove it" });
    } else if (typeof value !== "string" || !HEADER_VALUE.test(value)) {
      issues.push({
        path: `headers.${name}`,
        message: "value must be a string of visible Latin-1 characters (no line breaks or control characters)"
      });
    }
  }
  return issues;
}
function requestIdOf(headers) {
  for (const name of REQUEST_ID_HEADERS) if (headers[name] !== void 0) return headers[name];
  return void 0;
}
function flattenHeaders(headers) {
  const flat = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === void 0) continue;
    flat[name] = isSecretHeader(name) ? REDACTED_VALUE : Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

// src/hooks.ts
function emit(hooks, logger, kind, event) {
  if (!hooks?.[kind] && !logger) return;
  const safe2 = "headers" in event ? { ...event, headers: redactHeaders(event.headers) } : event;
  try {
    ;
    hooks?.[kind]?.(safe2);
  } catch {
  }
  if (!logger) return;
  try {
    if (kind === "onRetry" || kind === "onError") logger.warn(describe2(kind, safe2), safe2);
    else logger.debug(describe2(kind, safe2), safe2);
  } catch {
  }
}
function describe2(kind, event) {
  const head2 = `paywire ${event.operation} ${event.method} ${event.url}`;
  switch (kind) {
    case "onRequest":
      return `${head2} attempt ${event.attempt}`;
    case "onResponse":
      return `${head2} -> ${event.status}`;
    case "onRetry":
      return `${head2} retry in ${event.delayMs} ms: ${event.reason}`;
    case "onError":
      return `${head2} failed: ${event.error.message}`;
  }
}

// src/retry.ts
var safe = Object.freeze({ kind: "safe" });
var keyed = Object.freeze({ kind: "keyed" });
var unsentOnly = Object.freeze({ kind: "unsent-only" });
function withinWindow(windowMs) {
  return Object.freeze({ kind: "window", windowMs });
}
var RETRYABLE_STATUS = /* @__PURE__ */ new Set([408, 429, 502, 503, 504]);
function policyAllowsRetry(policy, failure) {
  if (failure.kind === "connection" && !failure.requestSent) return true;
  if (policy.kind === "unsent-only") return false;
  if (failure.kind === "interim") return policy.kind === "safe" || policy.kind === "keyed";
  if (failure.kind === "connection") return true;
  return RETRYABLE_STATUS.has(failure.status);
}
var DEFAULT_BACKOFF = Object.freeze({
  baseDelayMs: 250,
  maxDelayMs: 5e3,
  maxRetryAfterMs: 6e4
});
function retryDelay(retry, failure, options, random) {
  if (failure.kind === "status" && failure.retryAfterMs !== void 0) {
    return failure.retryAfterMs <= options.maxRetryAfterMs ? failure.retryAfterMs : void 0;
  }
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(retry - 1, 52));
  return Math.floor(random() * ceiling);
}
var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
var DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
var LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
var MONTH = `(${MONTHS.join("|")})`;
var TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
var IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
var RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
var ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);
function parseHttpDate(text, now) {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2], Number(m[1]), m[4], m[5], m[6]);
  m = RFC850_DATE.exec(text);
  if (m) {
    const yy = Number(m[3]);
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2], Number(m[1]), m[4], m[5], m[6]);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(Number(m[6]), m[1], Number((m[2] ?? "").trim()), m[3], m[4], m[5]);
  return void 0;
}
function utc(year, month, day, h, mi, s) {
  const monthIndex = MONTHS.indexOf(month ?? "");
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (hour > 23 || minute > 59 || second > 60) return void 0;
  const at = Date.UTC(year, monthIndex, day, hour, minute, Math.min(second, 59));
  return new Date(at).getUTCDate() === day ? at : void 0;
}
function parseRetryAfter(value, now) {
  if (value === void 0) return void 0;
  const text = value.replace(/^[ \t]+|[ \t]+$/g, "");
  if (/^\d+$/.test(text)) return Number(text) * 1e3;
  const date = parseHttpDate(text, now);
  if (date === void 0) return void 0;
  return Math.max(0, date - now);
}

// src/options.ts
function refuse(name, message, operation) {
  throw operation === void 0 ? new RequestValidationError("client", [{ path: name, message }], "options") : new RequestValidationError(operation, [{ path: name, message }]);
}
function positive(name, value, fallback, operation) {
  if (value === void 0) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    return refuse(name, "must be a finite number >= 0", operation);
  }
  return value;
}
function duration(name, value, fallback, operation, limit = false) {
  const ms = positive(name, value, fallback, operation);
  if (limit && ms === 0) return refuse(name, "must be above 0 ms", operation);
  if (ms > MAX_TIMER_MS) {
    return refuse(
      name,
      `must be at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest delay Node's timers honour`,
      operation
    );
  }
  return ms;
}
function backoffOptions(given) {
  const backoff = { ...DEFAULT_BACKOFF, ...given };
  return {
    baseDelayMs: duration("backoff.baseDelayMs", backoff.baseDelayMs, DEFAULT_BACKOFF.baseDelayMs, void 0),
    maxDelayMs: duration("backoff.maxDelayMs", backoff.maxDelayMs, DEFAULT_BACKOFF.maxDelayMs, void 0),
    maxRetryAfterMs: duration(
      "backoff.maxRetryAfterMs",
      backoff.maxRetryAfterMs,
      DEFAULT_BACKOFF.maxRetryAfterMs,
      void 0
    )
  };
}
var Agent = AgentClass;
function requestVia(dispatcher, url, options) {
  const target = new URL(url);
  return requestOnDispatcher.call(dispatcher, {
    ...options,
    origin: target.origin,
    path: `${target.pathname}${target.search}`
  });
}

// src/http-client.ts
var DEFAULT_TIMEOUT = 3e4;
var DEFAULT_TOTAL_TIMEOUT = 12e4;
var DEFAULT_MAX_RETRIES = 2;
var DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
var WINDOW_MARGIN_MS = 1e3;
var HttpClient = class {
  #dispatcher;
  #ownsDispatcher;
  #timeout;
  #totalTimeout;
  #maxRetries;
  #maxResponseBytes;
  /** Per-attempt deadlines, one timer for all of them (deadlines.ts); real monotonic time, like the timers they replace. */
  #deadlines = new DeadlineList();
  #backoff;
  #clock;
  #random;
  #hooks;
  #logger;
  #journal;
  #service;
  #userAgent;
  /** Whether anyone listens: without hooks or a logger, no event object is built per request. */
  #observed;
  #closed = false;
  /** The one closing of the pool: a second `close()` waits for the same one. */
  #closing;
  constructor(config) {
    const o = config.options;
    this.#timeout = duration("timeout", o.timeout, DEFAULT_TIMEOUT, void 0, true);
    this.#totalTimeout = duration("totalTimeout", o.totalTimeout, DEFAULT_TOTAL_TIMEOUT, void 0, true);
    this.#maxRetries = Math.floor(positive("maxRetries", o.maxRetries, DEFAULT_MAX_RETRIES));
    this.#maxResponseBytes = positive("maxResponseBytes", o.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
    this.#backoff = backoffOptions(o.backoff);
    this.#clock = o.clock ?? systemClock;
    this.#random = o.random ?? Math.random;
    this.#hooks = o.hooks;
    this.#logger = o.logger;
    this.#observed = o.hooks !== void 0 || o.logger !== void 0;
    this.#journal = checkJournal(o.journal);
    this.#service = config.packageName;
    const suffix = o.userAgent ? ` ${o.userAgent}` : "";
    this.#userAgent = `paywire-${config.packageName}/${config.packageVersion} node/${process.versions.node}${suffix}`;
    this.#ownsDispatcher = o.dispatcher === void 0;
    const maxSockets = socketCap(o.maxSockets, o.dispatcher !== void 0);
    this.#dispatcher = o.dispatcher ?? new Agent({
      keepAliveTimeout: 4e3,
      connections: maxSockets,
      // Our own per-attempt timer is the only deadline: undici's must never fire first.
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { timeout: Math.min(1e4, Math.max(1, this.#timeout)) }
    });
  }
  /** The intent journal of this client, when one was given. */
  get journal() {
    return this.#journal;
  }
  /** The service this client talks to (`card-gateway`): the journal's namespace. */
  get service() {
    return this.#service;
  }
  /** The User-Agent this client sends. */
  get userAgent() {
    return this.#userAgent;
  }
  /** Sends `req`, retrying as its policy allows; resolves with the decoded result. */
  send(req, handler, call = {}) {
    return new ApiPromise(this.#run(req, handler, call));
  }
  /**
   * Closes the client's own connection pool (a caller-supplied dispatcher is left open). Calls made
   * afterwards fail with a `ConnectionError` that says nothing was sent. Calling it twice is fine.
   */
  close() {
    this.#closed = true;
    this.#closing ??= this.#ownsDispatcher ? this.#dispatcher.close().then(() => void 0) : Promise.resolve();
    return this.#closing;
  }
  /** Whether a request handed to the dispatcher now would be refused before anything is written. */
  #dispatcherShut() {
    const d = this.#dispatcher;
    return this.#closed || d.closed === true || d.destroyed === true;
  }
  async #run(req, handler, call) {
    const timeout = duration("timeout", call.timeout, this.#timeout, req.operation, true);
    const maxRetries = Math.floor(positive("maxRetries", call.maxRetries, this.#maxRetries, req.operation));
    const state = {
      deadline: this.#clock.now() + this.#totalTimeout,
      timeout,
      maxRetries,
      firstArrival: void 0,
      mayHaveActed: false
    };
    const headers = {
      "user-agent": this.#userAgent,
      accept: "application/json",
      ...call.headers,
      ...req.headers
    };
    if (req.body) headers["content-type"] = req.body.contentType;
    const sdkHeaders = { ...req.headers };
    for (const name of req.managedHeaders ?? []) sdkHeaders[name] ??= "";
    if (req.body) sdkHeaders["content-type"] = req.body.contentType;
    const issues = [...managedHeaderIssues(sdkHeaders, call.headers), ...headerIssues(headers)];
    if (issues.length > 0) throw this.#fail(req, new RequestValidationError(req.operation, issues));
    let lastError;
    for (let attempt = 1; ; attempt++) {
      const request = { ...req, earlierAttemptMayHaveActed: state.mayHaveActed };
      this.#refuseUnsendable(request, state, attempt, call.signal);
      if (this.#observed) {
        emit(this.#hooks, this.#logger, "onRequest", {
          operation: req.operation,
          method: req.method,
          url: req.url,
          attempt,
          headers
        });
        this.#refuseUnsendable(request, state, attempt, call.signal);
      }
      const startedAt = this.#clock.now();
      const budget = this.#attemptBudget(req, state, startedAt);
      if (budget.ms <= 0) throw this.#fail(req, lastError ?? this.#expiredError(request, state, attempt, budget));
      const outcome = await this.#attempt({
        request,
        headers,
        attempt,
        budget,
        signal: call.signal,
        priorArrival: state.firstArrival !== void 0
      });
      if ((outcome.ok || outcome.mayHaveArrived) && state.firstArrival === void 0) state.firstArrival = startedAt;
      if (outcome.ok) {
        const response = outcome.response;
        if (this.#observed) {
          emit(this.#hooks, this.#logger, "onResponse", {
            operation: req.operation,
            method: req.method,
            url: req.url,
            attempt,
            status: response.status,
            requestId: response.requestId,
            headers: response.headers
          });
        }
        if (response.status >= 200 && response.status < 300) {
          return { data: this.#decode(handler, response, request), response };
        }
        const error = handler.toError(response, request);
        state.mayHaveActed ||= error.outcomeUnknown;
        const retryAfter = response.headers["retry-after"];
        const retryAfterMs = retryAfter === void 0 ? void 0 : parseRetryAfter(retryAfter, this.#wallClock());
        const failure = { kind: "status", status: response.status, retryAfterMs };
        const delay2 = this.#retryDelay(req, failure, attempt, state);
        if (delay2 === void 0) throw this.#fail(req, error);
        lastError = error;
        this.#retrying(req, attempt, delay2, `HTTP ${response.status}`);
        await this.#sleep(delay2, req, state, call.signal);
        continue;
      }
      state.mayHaveActed ||= outcome.error.outcomeUnknown;
      const delay = outcome.failure && this.#retryDelay(req, outcome.failure, attempt, state);
      if (delay === void 0) throw this.#fail(req, outcome.error);
      lastError = outcome.error;
      this.#retrying(req, attempt, delay, outcome.error.message);
      await this.#sleep(delay, req, state, call.signal);
    }
  }
  /** Throws when the next attempt must not be sent: the caller aborted, or the client is closed. */
  #refuseUnsendable(request, state, attempt, signal) {
    const requestSent = state.firstArrival !== void 0;
    if (signal?.aborted) {
      throw this.#fail(
        request,
        new UserAbortError({ ...request, requestSent, mayHaveActed: false, cause: signal.reason })
      );
    }
    if (this.#dispatcherShut()) throw this.#fail(request, this.#closedError(request, attempt, requestSent));
  }
  /** No time was left for the first attempt (a hook outlasted the total deadline): nothing is sent. */
  #expiredError(request, state, attempt, budget) {
    return new TimeoutError({
      ...request,
      attempts: attempt - 1,
      phase: budget.phase ?? "total",
      timeoutMs: budget.phase === "window" ? 0 : this.#totalTimeout,
      requestSent: state.firstArrival !== void 0,
      mayHaveActed: false
    });
  }
  #wallClock() {
    return this.#clock.date?.() ?? Date.now();
  }
  /**
   * The next attempt's time limit: the per-attempt timeout, cut by the total deadline and, for a
   * window operation once an earlier attempt may have arrived, by the window's close, so the retry
   * either arrives inside the window or is abandoned before it could arrive outside it.
   */
  #attemptBudget(req, state, now) {
    let budget = { ms: state.timeout, phase: void 0 };
    const remaining = state.deadline - now;
    if (remaining < budget.ms) budget = { ms: remaining, phase: "total" };
    const windowLeft = windowClose(req.retry, state) - now;
    if (windowLeft < budget.ms) budget = { ms: windowLeft, phase: "window" };
    return budget;
  }
  /** Early returns, one rule each: the budget of retries, the policy, the backoff, the deadline, the window. */
  #retryDelay(req, failure, attempt, state) {
    if (attempt > state.maxRetries) return void 0;
    if (!policyAllowsRetry(req.retry, failure)) return void 0;
    const delay = retryDelay(attempt, failure, this.#backoff, this.#random);
    if (delay === void 0) return void 0;
    const resumeAt = this.#clock.now() + delay;
    if (resumeAt >= state.deadline) return void 0;
    if (resumeAt >= windowClose(req.retry, state)) return void 0;
    return delay;
  }
  #closedError(req, attempt, priorArrival) {
    return new ConnectionError({
      ...req,
      attempts: attempt - 1,
      requestSent: priorArrival,
      mayHaveActed: false,
      message: `${req.operation}: the client is closed (close() was called, or its dispatcher was closed or destroyed); attempt ${attempt} was not sent.`
    });
  }
  /** A 2xx the service package cannot read is an error like any other: observers hear of it. */
  #decode(handler, response, req) {
    try {
      return handler.decode(response, req);
    } catch (error) {
      throw error instanceof PaywireError ? this.#fail(req, error) : error;
    }
  }
  #retrying(req, attempt, delayMs, reason) {
    emit(this.#hooks, this.#logger, "onRetry", {
      operation: req.operation,
      method: req.method,
      url: req.url,
      attempt,
      delayMs,
      reason
    });
  }
  #fail(req, error) {
    emit(this.#hooks, this.#logger, "onError", { operation: req.operation, method: req.method, url: req.url, error });
    return error;
  }
  /** Backoff; an abort during it sends nothing, so only earlier attempts decide what the error says. */
  async #sleep(ms, req, state, signal) {
    try {
      await this.#clock.sleep(ms, signal);
    } catch (cause) {
      const abort = new UserAbortError({
        ...req,
        earlierAttemptMayHaveActed: state.mayHaveActed,
        requestSent: state.firstArrival !== void 0,
        mayHaveActed: false,
        cause
      });
      throw this.#fail(req, abort);
    }
  }
  async #attempt(plan) {
    const { request: req, headers, attempt, budget, signal: userSignal } = plan;
    const timeoutMs = budget.ms;
    const deadline = this.#deadlines.start(timeoutMs);
    let phase = "headers";
    let interimStatus;
    const onUserAbort = () => deadline.abort("user");
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
    const info = { ...req, attempts: attempt };
    let head2;
    try {
      const res = await requestVia(this.#dispatcher, req.url, {
        method: req.method,
        headers,
        body: req.body?.text,
        signal: deadline,
        headersTimeout: timeoutMs + 1e3,
        bodyTimeout: timeoutMs + 1e3,
        onInfo: ({ statusCode }) => {
          interimStatus = statusCode;
        }
      });
      phase = "body";
      const responseHeaders = flattenHeaders(res.headers);
      head2 = {
        status: res.statusCode,
        headers: responseHeaders,
        requestId: requestIdOf(responseHeaders),
        attempts: attempt,
        idempotencyKey: req.idempotencyKey
      };
      const rawBody = await this.#readBody(res.body, responseHeaders, res.statusCode, {
        ...info,
        requestSent: true
      });
      return { ok: true, response: { ...head2, rawBody, json: parseJson(rawBody) } };
    } catch (error) {
      if (error instanceof PaywireError) return { ok: false, error, failure: void 0, mayHaveArrived: true };
      if (head2 && deadline.abortedBy !== "user" && (head2.status < 200 || head2.status >= 300)) {
        return { ok: true, response: { ...head2, rawBody: "", json: void 0 } };
      }
      interimStatus ??= interimStatusOf(error);
      return classifyFailure(error, plan, { abortedBy: deadline.abortedBy, phase, interimStatus });
    } finally {
      this.#deadlines.finish(deadline);
      userSignal?.removeEventListener("abort", onUserAbort);
    }
  }
  async #readBody(body, headers, status, info) {
    const limit = this.#maxResponseBytes;
    const declared = Number(headers["content-length"]);
    const tooLarge = () => {
      body.destroy();
      return new ResponseTooLargeError({ ...info, limitBytes: limit, status });
    };
    if (Number.isFinite(declared) && declared > limit) throw tooLarge();
    if (Number.isFinite(declared)) return body.text();
    const chunks = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
    return chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8");
  }
};
function windowClose(policy, state) {
  if (policy.kind !== "window" || state.firstArrival === void 0) return Number.POSITIVE_INFINITY;
  return state.firstArrival + policy.windowMs - WINDOW_MARGIN_MS;
}
function parseJson(text) {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[" && first !== '"') return void 0;
  try {
    return JSON.parse(text);
  } catch {
    return void 0;
  }
}
var DEFAULT_MAX_SOCKETS = 64;
function socketCap(value, ownDispatcher) {
  if (value === void 0) return DEFAULT_MAX_SOCKETS;
  const problem = !Number.isSafeInteger(value) || value < 1 ? "must be a whole number >= 1" : ownDispatcher ? "applies to the client's own Agent only: with `dispatcher`, set that dispatcher's `connections` instead" : void 0;
  if (problem === void 0) return value;
  throw new RequestValidationError("client", [{ path: "maxSockets", message: problem }], "options");
}
function checkJournal(journal) {
  if (journal === void 0) return void 0;
  const store = journal;
  if (typeof store === "object" && store !== null && typeof store.open === "function" && typeof store.close === "function" && typeof store.openIntents === "function") {
    return journal;
  }
  throw new RequestValidationError(
    "client",
    [{ path: "journal", message: "must be an intent store with open(), close() and openIntents()" }],
    "options"
  );
}

// src/problem-details.ts
var MEMBERS = {
  type: "string",
  title: "string",
  status: "number",
  detail: "string",
  instance: "string"
};
function parseProblemDetails(body) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return void 0;
  const record = body;
  if (!Object.keys(MEMBERS).some((name) => name in record)) return void 0;
  const problem = {};
  for (const [name, value] of Object.entries(record)) {
    const expected = MEMBERS[name];
    if (expected === void 0 || typeof value === expected) problem[name] = value;
  }
  if ("errors" in problem && !isErrorMap(problem.errors)) delete problem.errors;
  return problem;
}
function isErrorMap(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === "string"));
}
function describeProblem(problem) {
  const head2 = [problem.title, problem.detail].filter(Boolean).join(": ");
  const fields = problem.errors ? Object.entries(problem.errors).slice(0, 3).map(([field, messages]) => `${field}: ${messages.join(" ")}`).join("; ") : "";
  return [head2, fields].filter(Boolean).join(" \u2014 ");
}

// src/problem-error.ts
function problemReason(status) {
  if (status === 400) return "bad_request";
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 422) return "unprocessable";
  if (status === 429) return "rate_limited";
  if (status === 502) return "upstream_failure";
  if (status >= 500) return "server_error";
  if (status >= 300 && status < 400) return "unexpected_redirect";
  if (status < 200) return "unexpected_status";
  return "http_error";
}
var EMPTY_FIELD_ERRORS = Object.freeze({});
function head(reason, status) {
  const http = `HTTP ${status}`;
  switch (reason) {
    case "bad_request":
      return `the service refused the request (${http}).`;
    case "unauthorized":
    case "forbidden":
      return `the service rejected the credentials (${http}).`;
    case "not_found":
      return `not found (${http}).`;
    case "conflict":
      return `the service reports a conflict (${http}).`;
    case "unprocessable":
      return `the service could not process the request (${http}).`;
    case "rate_limited":
      return `too many requests (${http}).`;
    case "upstream_failure":
      return `the service reports an upstream failure (${http}).`;
    case "server_error":
      return `the service failed (${http}).`;
    case "unexpected_redirect":
      return `the service answered ${http}, a redirect the SDK never follows (the credentials would go to another host); check the base URL.`;
    case "unexpected_status":
      return `the service answered ${http}, which is no final answer.`;
    case "unreadable_response":
      return `the success answer (${http}) could not be read:`;
    case "response_schema_mismatch":
      return `the success answer (${http}) does not match the schema you passed:`;
    case "http_error":
      return `the service answered ${http}.`;
  }
}
function listIssues(issues) {
  if (!issues || issues.length === 0) return "see rawBody";
  return issues.slice(0, 3).map((issue) => `${issue.path || "(body)"}: ${issue.message}`).join("; ");
}
function checkAnswer(schema, value) {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, data: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }))
  };
}
function sentence(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
function describeAnswer(response, problem) {
  const described = problem ? describeProblem(problem) : "";
  if (described) return sentence(described);
  if (response.rawBody.trim() === "") return "The answer had an empty body.";
  const type = response.headers["content-type"] ?? "no content type";
  return `The answer is not a ProblemDetails record (${type}, ${Buffer.byteLength(response.rawBody)} bytes; see rawBody).`;
}
var ProblemDetailsError = class extends ApiError {
  name = "ProblemDetailsError";
  reason;
  /** The ProblemDetails record, every member kept; `undefined` when the body was not one. */
  problem;
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  issues;
  constructor(init, hints = {}) {
    const { request, response } = init;
    const problem = response.status >= 400 ? parseProblemDetails(response.json) : void 0;
    const reason = init.reason ?? problemReason(response.status);
    const hint = hints[reason];
    const what = init.reason ? sentence(init.problemWithAnswer ?? listIssues(init.issues)) : describeAnswer(response, problem);
    super({
      ...request,
      response,
      body: response.json,
      code: problem?.type,
      message: `${request.operation}: ${head(reason, response.status)}${hint ? ` ${hint}` : ""} ${what}`
    });
    this.reason = reason;
    this.problem = problem;
    this.issues = init.issues ?? [];
  }
  /** ProblemDetails `title`. */
  get title() {
    return this.problem?.title;
  }
  /** ProblemDetails `detail`. */
  get detail() {
    return this.problem?.detail;
  }
  /** ProblemDetails `instance`. */
  get instance() {
    return this.problem?.instance;
  }
  /** The ASP.NET validation map `{ field: [messages] }`; empty when the answer had none. */
  get fieldErrors() {
    return this.problem?.errors ?? EMPTY_FIELD_ERRORS;
  }
  /** The ASP.NET `traceId` extension, for the service's support desk. */
  get traceId() {
    const traceId = this.problem?.traceId;
    return typeof traceId === "string" ? traceId : void 0;
  }
  /** True for 401 and 403: the credentials were rejected. */
  get isAuthError() {
    return this.reason === "unauthorized" || this.reason === "forbidden";
  }
  /** True for 404. */
  get isNotFound() {
    return this.reason === "not_found";
  }
};
brandErrorClass(ProblemDetailsError, "ProblemDetailsError");
function problemAnswers(ErrorClass) {
  return {
    read(response, request, raw) {
      if (response.json !== void 0) return response.json;
      const text = response.rawBody.trim();
      if (text === "") return void 0;
      try {
        return JSON.parse(text);
      } catch {
        if (raw) return response.rawBody;
        const type = response.headers["content-type"] ?? "no content type";
        throw new ErrorClass({
          request,
          response,
          reason: "unreadable_response",
          problemWithAnswer: `it is not JSON (${type}); see rawBody`
        });
      }
    },
    toError: (response, request) => new ErrorClass({ request, response }),
    unusable: (response, request, problem) => new ErrorClass({
      request,
      response,
      reason: problem.reason,
      ...problem.reason === "unreadable_response" ? { problemWithAnswer: problem.message } : { issues: problem.issues }
    })
  };
}

// src/raw.ts
var METHODS = /* @__PURE__ */ new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
function buildRawRequest(operation, baseUrl, input, headers, managedHeaders = []) {
  const issues = [];
  if (!METHODS.has(input.method)) issues.push({ path: "method", message: `must be one of ${[...METHODS].join(", ")}` });
  if (typeof input.path !== "string" || !input.path.startsWith("/") || input.path.startsWith("//")) {
    issues.push({ path: "path", message: 'must be a path starting with a single "/" (no scheme or host)' });
  }
  if (input.body !== void 0 && input.form !== void 0) {
    issues.push({ path: "body", message: "give either body (JSON) or form, not both" });
  }
  const owned = Object.fromEntries([...managedHeaders.map((name) => [name, ""]), ...Object.entries(headers)]);
  issues.push(...managedHeaderIssues(owned, input.headers));
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
  const body = input.form !== void 0 ? formBody(input.form) : input.body !== void 0 ? jsonBody(input.body) : void 0;
  return {
    operation,
    method: input.method,
    url: withQuery(baseUrl + input.path, input.query),
    headers: { ...input.headers, ...headers },
    ...body ? { body } : {},
    retry: input.retry ?? (input.method === "GET" ? safe : unsentOnly),
    managedHeaders
  };
}
function isLoopbackHost(hostname) {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}
function checkBaseUrl(option, value, client) {
  const fail = (message) => {
    throw new RequestValidationError(client, [{ path: option, message }], "options");
  };
  if (typeof value !== "string" || value === "") return fail("must be a non-empty URL string");
  let url;
  try {
    url = new URL(value);
  } catch {
    return fail("is not a valid absolute URL");
  }
  if (url.username || url.password) return fail("must not contain credentials; pass keys as client options");
  if (url.search || url.hash) return fail("must not contain a query string or fragment");
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return fail(`must use https: (plain http: is allowed only for loopback hosts, got ${url.hostname})`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return fail(`must use https:, got ${url.protocol}`);
  return url.href.replace(/\/+$/, "");
}
function pathSegment(value, field = "path variable", operation = "request") {
  const text = String(value);
  const refuse2 = (message) => {
    throw new RequestValidationError(operation, [{ path: field, message }]);
  };
  if (text === "" || /^(\.|%2e){1,2}$/i.test(text)) refuse2('must not be empty, "." or ".." (it would change the route)');
  try {
    return encodeURIComponent(text);
  } catch {
    return refuse2("must be well-formed Unicode (it holds a lone surrogate)");
  }
}
function expandPath(template, values, operation = "request") {
  return template.replace(/\{(\w+)\}/g, (_whole, name) => pathSegment(values[name] ?? "", name, operation));
}

// src/validate.ts
function validateParams(operation, schema, input) {
  const checked = checkParams(schema, input);
  if (checked.ok) return checked.data;
  throw new RequestValidationError(operation, checked.issues);
}
function checkParams(schema, input) {
  const result = schema.safeParse(input, { error: inOurWords });
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, issues: toIssues(schema, result.error.issues) };
}
function describe3(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  const type = typeof value;
  return type === "object" || type === "undefined" ? `an ${type}` : `a ${type}`;
}
var EXPECTED = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  bigint: "a bigint"
};
function sizeOf(origin, n) {
  if (origin === "string") return n === 1 ? "1 character" : `${n} characters`;
  if (origin === "array" || origin === "set") return n === 1 ? "1 item" : `${n} items`;
  return String(n);
}
function inOurWords(issue) {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === void 0) return "is required";
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${describe3(issue.input)}`;
    case "too_small": {
      if (issue.origin === "string" && issue.minimum === 1) return "must not be empty";
      const bound = sizeOf(issue.origin, issue.minimum);
      return issue.inclusive === false ? `must be more than ${bound}` : `must be at least ${bound}`;
    }
    case "too_big": {
      const bound = sizeOf(issue.origin, issue.maximum);
      return issue.inclusive === false ? `must be less than ${bound}` : `must be at most ${bound}`;
    }
    case "invalid_value":
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "invalid_format":
      return issue.format === "regex" ? "has the wrong format" : `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_union":
      return "matches none of the accepted shapes";
    default:
      return "is not valid here";
  }
}
function toIssues(schema, issues) {
  const out = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const guess = closest(key, known);
        out.push({
          path: base ? `${base}.${key}` : key,
          message: guess ? `unknown field; did you mean "${guess}"?` : "unknown field"
        });
      }
      continue;
    }
    out.push({ path: base, message: issue.message });
  }
  return out;
}
function defOf(schema) {
  return schema._zod.def;
}
function knownKeysAt(schema, path) {
  let current = schema;
  const steps = [...path];
  while (current) {
    const def = defOf(current);
    if (def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else if (def.type === "object" && def.shape) {
      if (steps.length === 0) return Object.keys(def.shape);
      current = def.shape[String(steps.shift())];
    } else if (def.type === "array" && def.element) {
      steps.shift();
      current = def.element;
    } else return [];
  }
  return [];
}
function closest(word, candidates) {
  let best;
  let bestDistance = Math.min(3, Math.ceil(word.length / 2));
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d <= bestDistance) {
      best = candidate;
      bestDistance = d - 1;
    }
  }
  return best;
}
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = row;
  }
  return previous[b.length];
}

// src/operation.ts
function defineOperation(row) {
  return Object.freeze(row);
}
function jsonAnswer(value) {
  return value;
}
var KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
var PATH_VARIABLE = /\{(\w+)\}/g;
var DOT_SEGMENT = /^(\.|%2e){1,2}$/i;
var NO_PATH = Object.freeze({});
var OperationClient = class {
  #config;
  #defaultBase;
  /** Each row's schema under this client's rules, built once. */
  #schemas = /* @__PURE__ */ new WeakMap();
  constructor(config) {
    this.#config = config;
    this.#defaultBase = Object.keys(config.baseUrls)[0] ?? "default";
  }
  /** Checks `input`, builds the request and sends it; a refusal rejects with `RequestValidationError`. */
  call(row, input, options) {
    let built;
    try {
      built = this.#build(row, input, options ?? {});
    } catch (error) {
      return ApiPromise.rejected(error);
    }
    const { request, params } = built;
    const handler = this.#handler(row.decode, options?.schema, false);
    const { http } = this.#config;
    const journal = http.journal;
    if (journal === void 0 || request.retry.kind === "safe") return http.send(request, handler, callOptions(options));
    return new ApiPromise(
      journaled(journal, http.service, request, params, () => http.send(request, handler, callOptions(options)))
    );
  }
  /**
   * The raw escape hatch: `input` on the same pipeline with the client's credentials, retries
   * (`safe` for GET, `unsent-only` otherwise, unless `retry` says) and error class. Resolves with
   * the parsed JSON, or the text when the answer is not JSON.
   */
  request(input, options) {
    let request;
    try {
      request = this.#buildRaw(input, options ?? {});
    } catch (error) {
      return ApiPromise.rejected(error);
    }
    const handler = this.#handler(void 0, options?.schema, true);
    return this.#config.http.send(request, handler, callOptions(options));
  }
  #build(row, input, options) {
    const { context: ctx } = this.#config;
    const issues = optionIssues(options, row.idempotency !== void 0);
    const template = typeof row.path === "string" ? row.path : row.path(ctx);
    const path = pathValues(template, input.path, issues);
    if (row.query) issues.push(...queryIssues(input.query));
    const idempotency = row.idempotency;
    let key = options.idempotencyKey;
    let params;
    if (row.params) {
      let body = input.body;
      if (idempotency && "bodyField" in idempotency) {
        ({ body, key } = withBodyKey(body, idempotency, key, issues));
      }
      issues.push(...row.precheck?.(body) ?? []);
      if (issues.length === 0) {
        const checked = checkParams(this.#schemaOf(row), body);
        if (checked.ok) params = checked.data;
        else issues.push(...checked.issues);
      }
    }
    if (issues.length > 0) throw new RequestValidationError(row.name, issues);
    if (key === void 0 && idempotency?.generate) key = randomUUID();
    let wire;
    if (row.params) {
      wire = row.toWire ? row.toWire(params, ctx) : params;
      row.finalize?.(wire, ctx, row.name);
    }
    if (idempotency && "bodyField" in idempotency) {
      const sentKey = wire?.[idempotency.bodyField];
      key = typeof sentKey === "string" ? sentKey : void 0;
    }
    refuseKeylessResend(row.name, options, key);
    const headers = { ...this.#config.authHeaders?.() };
    const keyHeader = idempotency && "header" in idempotency ? idempotency.header : void 0;
    if (keyHeader && key !== void 0) headers[keyHeader] = key;
    const url = this.#baseUrl(row.base, row.name) + expandPath(template, path, row.name);
    const sent = { wire, path, idempotencyKey: key };
    const request = {
      operation: row.name,
      method: row.method,
      url: row.query ? withQuery(url, input.query) : url,
      headers,
      ...wire ? { body: row.encoding === "form" ? formBody(wire) : jsonBody(wire) } : {},
      retry: options.retryWithSameKey === true ? keyed : row.retry,
      reconciliation: row.reconcile ? row.reconcile(sent) : keyReconciliation(idempotency, key),
      idempotencyKey: key,
      managedHeaders: keyHeader ? [keyHeader] : void 0
    };
    return { request, params };
  }
  #buildRaw(input, options) {
    const keyHeader = this.#config.requestIdempotencyHeader;
    const issues = optionIssues(options, keyHeader !== void 0);
    if (issues.length > 0) throw new RequestValidationError("request", issues);
    const { base, ...rest } = input ?? {};
    const key = options.idempotencyKey;
    refuseKeylessResend("request", options, key);
    const headers = { ...this.#config.authHeaders?.() };
    if (keyHeader && key !== void 0) headers[keyHeader] = key;
    const managed = keyHeader ? [keyHeader] : [];
    const request = buildRawRequest("request", this.#baseUrl(base, "request"), rest, headers, managed);
    return {
      ...request,
      retry: options.retryWithSameKey === true ? keyed : request.retry,
      reconciliation: keyReconciliation(keyHeader ? { header: keyHeader } : void 0, key),
      idempotencyKey: key
    };
  }
  #baseUrl(base, operation) {
    const name = base ?? this.#defaultBase;
    const url = Object.hasOwn(this.#config.baseUrls, name) ? this.#config.baseUrls[name] : void 0;
    if (typeof url === "string") return url;
    const names = Object.keys(this.#config.baseUrls).map((name2) => JSON.stringify(name2));
    throw new RequestValidationError(operation, [{ path: "base", message: `must be ${names.join(" or ")}` }]);
  }
  #schemaOf(row) {
    const given = row.params;
    if (typeof given !== "function") return given;
    let schema = this.#schemas.get(row);
    if (!schema) {
      schema = given(this.#config.context);
      this.#schemas.set(row, schema);
    }
    return schema;
  }
  #handler(decode, schema, raw) {
    const { answers } = this.#config;
    return {
      decode(response, request) {
        const value = answers.read(response, request, raw);
        if (schema) {
          const checked = checkAnswer(schema, value);
          if (checked.ok) return checked.data;
          throw answers.unusable(response, request, { reason: "response_schema_mismatch", issues: checked.issues });
        }
        if (!decode) return value;
        return decode(value, (message) => {
          throw answers.unusable(response, request, { reason: "unreadable_response", message });
        });
      },
      toError: (response, request) => answers.toError(response, request)
    };
  }
};
function refuseKeylessResend(operation, options, key) {
  if (options.retryWithSameKey !== true || key !== void 0) return;
  throw new RequestValidationError(operation, [
    {
      path: "retryWithSameKey",
      message: "this call carries no idempotency key (give idempotencyKey), so a resend could act twice"
    }
  ]);
}
function callOptions(options) {
  if (!options) return void 0;
  const { schema: _schema, idempotencyKey: _key, retryWithSameKey: _retry, ...call } = options;
  return call;
}
function optionIssues(options, keyed2) {
  const issues = [];
  const { idempotencyKey: key, retryWithSameKey: sameKey, schema } = options;
  if (key !== void 0) {
    if (!keyed2) issues.push({ path: "idempotencyKey", message: "this operation carries no idempotency key" });
    else if (typeof key !== "string" || !KEY_PATTERN.test(key)) {
      issues.push({ path: "idempotencyKey", message: "must be 1 to 255 visible ASCII characters (no spaces)" });
    }
  }
  if (sameKey !== void 0) {
    if (typeof sameKey !== "boolean") issues.push({ path: "retryWithSameKey", message: "must be true or false" });
    else if (sameKey && !keyed2) {
      issues.push({
        path: "retryWithSameKey",
        message: "this operation carries no idempotency key, so a resend could act twice"
      });
    }
  }
  if (schema !== void 0 && typeof schema?.safeParse !== "function") {
    issues.push({ path: "schema", message: "must be a schema with a safeParse method (zod)" });
  }
  return issues;
}
function pathValues(template, given, issues) {
  const names = Array.from(template.matchAll(PATH_VARIABLE), (match) => match[1]);
  if (names.length === 0) return NO_PATH;
  const values = {};
  for (const name of names) {
    const value = given?.[name];
    if (typeof value === "string" && DOT_SEGMENT.test(value)) {
      issues.push({ path: name, message: 'must not be empty, "." or ".." (it would change the route)' });
    } else if (typeof value === "string" && value.trim() !== "" || typeof value === "number" && Number.isSafeInteger(value)) {
      values[name] = value;
    } else issues.push({ path: name, message: "must be a non-empty string (or a whole number)" });
  }
  return values;
}
var isQueryScalar = (v) => v === void 0 || v === null || typeof v === "string" || typeof v === "boolean" || Number.isFinite(v);
function queryIssues(value) {
  if (value === void 0) return [];
  const proto = typeof value === "object" && value !== null ? Object.getPrototypeOf(value) : void 0;
  if (proto !== Object.prototype && proto !== null) {
    return [{ path: "query", message: "must be a plain object of query parameters" }];
  }
  const issues = [];
  for (const [name, v] of Object.entries(value)) {
    const values = Array.isArray(v) ? v : [v];
    if (!values.every(isQueryScalar)) {
      issues.push({
        path: name,
        message: "must be a string, finite number, boolean, null/undefined, or an array of those"
      });
    }
  }
  return issues;
}
function withBodyKey(body, idempotency, optionKey, issues) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { body, key: optionKey };
  const field = idempotency.bodyField;
  const given = body[field];
  if (given !== void 0) {
    if (optionKey !== void 0 && given !== optionKey) {
      issues.push({ path: "idempotencyKey", message: `differs from the body's ${field}; give the key once` });
    }
    return { body, key: typeof given === "string" ? given : void 0 };
  }
  const key = optionKey ?? (idempotency.generate ? randomUUID() : void 0);
  return { body: key === void 0 ? body : { ...body, [field]: key }, key };
}
function keyReconciliation(idempotency, key) {
  if (!idempotency || key === void 0) return void 0;
  const name = "header" in idempotency ? idempotency.header : idempotency.bodyField;
  return { key: name, value: key, lookup: `the same call repeated with { idempotencyKey: ${JSON.stringify(key)} }` };
}
async function journaled(journal, service, request, params, send) {
  const intent = {
    id: randomUUID(),
    service,
    operation: request.operation,
    params: params === void 0 ? null : params,
    reconciliation: request.reconciliation,
    idempotencyKey: request.idempotencyKey,
    createdAt: Date.now()
    // wall-clock time, for ordering and for people; no duration is measured on it
  };
  try {
    await journal.open(intent);
  } catch (cause) {
    throw new PaywireError(
      `${request.operation}: the intent journal did not record the call, so nothing was sent (${String(cause)}).`,
      { cause }
    );
  }
  let outcome;
  try {
    outcome = await send().withResponse();
  } catch (error) {
    if (error instanceof PaywireError && !error.outcomeUnknown) await closeQuietly(journal, intent.id, "not_applied");
    throw error;
  }
  await closeQuietly(journal, intent.id, "applied");
  return outcome;
}
async function closeQuietly(journal, id, outcome) {
  try {
    await journal.close(id, outcome);
  } catch {
  }
}

// src/reconcile.ts
var DEFAULT_SETTLE_AFTER_MS = 12e4;
function reconcileSubject(subject, client) {
  const refuse2 = (message) => {
    throw new RequestValidationError(`${client}.reconcile`, [{ path: "subject", message }]);
  };
  if (subject instanceof PaywireError) {
    if (!subject.outcomeUnknown) {
      return refuse2("has a definite outcome (outcomeUnknown is false): there is nothing to reconcile");
    }
    const operation = subject.operation;
    if (typeof operation !== "string" || subject.reconciliation === void 0) {
      return refuse2("carries no operation and reconciliation key to look up");
    }
    return { operation, reconciliation: subject.reconciliation, since: subject.occurredAt };
  }
  if (typeof subject !== "object" || subject === null || typeof subject.operation !== "string") {
    return refuse2("must be an error with outcomeUnknown, or an intent from pendingIntents()");
  }
  if (subject.reconciliation === void 0) {
    return refuse2(`is an intent of ${subject.operation} without a reconciliation key: settle it by hand`);
  }
  return { operation: subject.operation, reconciliation: subject.reconciliation, since: subject.createdAt };
}
async function openIntentsOf(http) {
  return http.journal ? http.journal.openIntents(http.service) : [];
}
async function reconcileJournal(http, client, reconcile) {
  const journal = http.journal;
  if (journal === void 0) {
    throw new RequestValidationError(`${client}.reconcileAll`, [
      { path: "journal", message: "is not configured: pass an intent store as the client option journal" }
    ]);
  }
  const settled = [];
  for (const intent of await journal.openIntents(http.service)) {
    const result = intent.reconciliation ? await reconcile(intent).catch(
      (error) => ({
        outcome: "still_unknown",
        operation: intent.operation,
        key: intent.reconciliation,
        state: void 0,
        evidence: `the lookup failed: ${error instanceof Error ? error.message : String(error)}`,
        next: "run reconcileAll() again once the service answers"
      })
    ) : {
      outcome: "still_unknown",
      operation: intent.operation,
      key: { key: "intent", value: intent.id, lookup: "none" },
      state: void 0,
      evidence: `${intent.operation} has no reconciliation key`,
      next: "settle it by hand with the service, then close it in the journal"
    };
    if (result.outcome !== "still_unknown") await journal.close(intent.id, result.outcome);
    settled.push({ intent, result });
  }
  return settled;
}
var MemoryIntentStore = class {
  #open = /* @__PURE__ */ new Map();
  async open(intent) {
    this.#open.set(intent.id, structuredClone(intent));
  }
  async close(id, _outcome) {
    this.#open.delete(id);
  }
  async openIntents(service) {
    return [...this.#open.values()].filter((i) => i.service === service).sort((a, b) => a.createdAt - b.createdAt);
  }
};
var MemoryClaimStore = class {
  #entries = /* @__PURE__ */ new Map();
  #clock;
  constructor(options = {}) {
    this.#clock = options.clock ?? systemClock;
  }
  async claim(key, holdMs) {
    const now = this.#clock.now();
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > now) return void 0;
    const token = randomUUID();
    this.#entries.set(key, { token, done: false, expiresAt: now + holdMs });
    return token;
  }
  async complete(key, token, keepMs) {
    const entry = this.#entries.get(key);
    if (entry && entry.token !== token && entry.expiresAt > this.#clock.now()) return;
    this.#entries.set(key, { token, done: true, expiresAt: this.#clock.now() + keepMs });
  }
  async release(key, token) {
    const entry = this.#entries.get(key);
    if (entry?.token === token && !entry.done) this.#entries.delete(key);
  }
};

export { ApiError, ApiPromise, ConnectionError, DEFAULT_BACKOFF, DEFAULT_SETTLE_AFTER_MS, FORM_TYPE, HttpClient, JSON_TYPE, MemoryClaimStore, MemoryIntentStore, OperationClient, PaywireError, ProblemDetailsError, RequestValidationError, ResponseTooLargeError, Secret, SignatureVerificationError, TimeoutError, UserAbortError, WINDOW_MARGIN_MS, brandErrorClass, buildRawRequest, checkAnswer, checkBaseUrl, checkParams, closest, defineOperation, describeProblem, expandPath, formBody, jsonAnswer, jsonBody, keyed, listAnswer, openIntentsOf, parseProblemDetails, parseRetryAfter, pathSegment, problemAnswers, problemReason, readCredentials, reconcileJournal, reconcileSubject, recordAnswer, redactHeaders, safe, statusMayHaveActed, systemClock, unsentOnly, validateParams, withQuery, withinWindow };
