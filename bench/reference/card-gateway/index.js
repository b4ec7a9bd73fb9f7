import { defineOperation, safe, withinWindow, brandErrorClass, unsentOnly, readCredentials, checkBaseUrl, HttpClient, OperationClient, reconcileSubject, openIntentsOf, reconcileJournal, ApiError, RequestValidationError, SignatureVerificationError, DEFAULT_SETTLE_AFTER_MS, statusMayHaveActed, MemoryClaimStore } from '../core/index.js';
export { ApiError, ApiPromise, ConnectionError, MemoryClaimStore, MemoryIntentStore, PaywireError, ProblemDetailsError, RequestValidationError, ResponseTooLargeError, Secret, SignatureVerificationError, TimeoutError, UserAbortError } from '../core/index.js';
import { timingSafeEqual, hash } from 'crypto';
import { z } from 'zod';
import { inspect } from 'util';

// src/index.ts
var MINOR_UNITS = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4
};
var SENT_WITH_ZERO_CENTS = /* @__PURE__ */ new Set(["CLP", "JPY", "KRW", "UGX"]);
var CURRENCY_PATTERN = /^[A-Z]{3}$/;
var CURRENCY_RULE = 'must be a three-letter ISO 4217 currency code in capitals, e.g. "USD"';
function wireFormat(currency) {
  const exponent = MINOR_UNITS[currency] ?? 2;
  return { exponent, decimals: SENT_WITH_ZERO_CENTS.has(currency) ? 2 : exponent };
}
function formatAmount(minorUnits, currency) {
  const issues = [];
  if (typeof currency !== "string" || !CURRENCY_PATTERN.test(currency)) {
    issues.push({ path: "currency", message: CURRENCY_RULE });
  }
  const whole = typeof minorUnits === "bigint" || typeof minorUnits === "number" && Number.isSafeInteger(minorUnits) && !Object.is(minorUnits, -0);
  if (!whole || minorUnits < 0) {
    issues.push({
      path: "minorUnits",
      message: "must be a whole number of minor units >= 0 (a safe integer or a bigint), e.g. 1050 for 10.50"
    });
  }
  if (issues.length > 0) throw new RequestValidationError("formatAmount", issues);
  const { exponent, decimals } = wireFormat(currency);
  const digits = BigInt(minorUnits).toString().padStart(exponent + 1, "0");
  const units = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent).padEnd(decimals, "0");
  return decimals === 0 ? units : `${units}.${fraction}`;
}
function amountProblem(amount, currency) {
  if (currency === void 0 || !CURRENCY_PATTERN.test(currency)) {
    if (/^(0|[1-9]\d*)(\.\d{2,4})?$/.test(amount) && !/^0(\.0+)?$/.test(amount)) return void 0;
    return 'must be a positive decimal amount written as its currency takes it: whole, or with 2 decimals (3 or 4 for some currencies), e.g. "10.50"';
  }
  const { exponent, decimals } = wireFormat(currency);
  const fraction = exponent === 0 ? "0".repeat(decimals) : `\\d{${decimals}}`;
  const pattern = new RegExp(`^(0|[1-9]\\d*)${decimals === 0 ? "" : `\\.${fraction}`}$`);
  if (pattern.test(amount) && !/^0(\.0+)?$/.test(amount)) return void 0;
  const example = formatAmount(exponent === 0 ? 1e3 : 1050 * 10 ** (exponent - 2), currency);
  const shape = decimals === 0 ? `a whole number with no decimals (${currency} has no minor unit)` : exponent === 0 ? `a whole number written with ".00" (${currency} has no minor unit, and the gateway takes it with two zero decimals)` : `exactly ${decimals} decimals`;
  return `must be a positive ${currency} amount: ${shape}, e.g. "${example}" (formatAmount writes it from minor units)`;
}
var amountText = z.string({
  error: (issue) => typeof issue.input === "number" ? 'must be a string (e.g. "10.00"), not a number: the exact string is sent and signed (formatAmount writes it)' : issue.input === void 0 ? "is required" : 'must be a string such as "10.00"'
});
var currencyCode = z.string().regex(CURRENCY_PATTERN, CURRENCY_RULE);
function withAmountRule(schema, amountField, currencyField) {
  return schema.superRefine((value, ctx) => {
    const amount = value[amountField];
    if (typeof amount !== "string") return;
    const currency = currencyField === void 0 ? void 0 : value[currencyField];
    const problem = amountProblem(amount, typeof currency === "string" ? currency : void 0);
    if (problem) ctx.addIssue({ code: "custom", path: [amountField], message: problem });
  });
}
var UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
var uuid = z.string().regex(UUID_PATTERN, 'must be a UUID, e.g. "9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13"');
var nonEmpty = z.string().min(1, "must not be empty");
var DEFAULT_RULES = Object.freeze({
  allowPrivateRedirectUrls: false,
  intervalUnits: Object.freeze(["day", "month"]),
  orderDescriptionLength: Object.freeze({ min: 2, max: 1024 }),
  orderNumberMaxLength: 255
});
var REDIRECT_RULE = "platform rule: redirect targets must be public HTTPS URLs answering 2xx quickly";
function redirectUrl(allowPrivate) {
  return z.string().superRefine((value, ctx) => {
    let url;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: `must be an absolute https: URL (${REDIRECT_RULE})` });
      return;
    }
    if (url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: `must be an https: URL, not ${url.protocol} (${REDIRECT_RULE})` });
      return;
    }
    if (allowPrivate) return;
    const why = nonPublicHost(url.hostname);
    if (why === void 0) return;
    ctx.addIssue({
      code: "custom",
      message: `must be a public HTTPS URL: ${url.hostname} is ${why}, which the payer's browser cannot reach on your site (${REDIRECT_RULE}); for a sandbox or staging host set the client option allowPrivateRedirectUrls: true`
    });
  });
}
function nonPublicHost(hostname) {
  if (hostname.startsWith("[")) return nonPublicIpv6(hostname.slice(1, -1));
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(hostname);
  if (v4) return nonPublicIpv4(v4.slice(1).reduce((n, part) => n * 256 + Number(part), 0));
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name === "localhost" || name.endsWith(".localhost")) return "a loopback name";
  if (!name.includes(".")) return "a single-label name (resolved only inside a private network)";
  if (/\.(local|internal|home\.arpa)$/.test(name)) return "a local network name";
  return void 0;
}
function inV4(address, prefix, bits) {
  const base = prefix.split(".").reduce((n, part) => n * 256 + Number(part), 0);
  const size = 2 ** (32 - bits);
  return Math.floor(address / size) === Math.floor(base / size);
}
function nonPublicIpv4(address) {
  if (inV4(address, "0.0.0.0", 8)) return "an unspecified address";
  if (inV4(address, "127.0.0.0", 8)) return "a loopback address";
  if (inV4(address, "10.0.0.0", 8) || inV4(address, "172.16.0.0", 12) || inV4(address, "192.168.0.0", 16)) {
    return "a private address";
  }
  if (inV4(address, "100.64.0.0", 10)) return "a private (carrier-grade NAT) address";
  if (inV4(address, "169.254.0.0", 16)) return "a link-local address";
  if (inV4(address, "224.0.0.0", 3)) return "a multicast or reserved address";
  return void 0;
}
function nonPublicIpv6(text) {
  const halves = text.split("::");
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(":") : [];
  const fill = halves.length > 1 ? 8 - head.length - tail.length : 0;
  const g = [...head, ...Array(fill).fill("0"), ...tail].map((group) => Number.parseInt(group, 16));
  const [g0 = 0, g5 = 0, g6 = 0, g7 = 0] = [g[0], g[5], g[6], g[7]];
  const zeroTo = (end) => g.slice(0, end).every((group) => group === 0);
  if (zeroTo(8)) return "an unspecified address";
  if (zeroTo(7) && g7 === 1) return "a loopback address";
  if (zeroTo(5) && g5 === 65535) return nonPublicIpv4(g6 * 65536 + g7);
  if ((g0 & 65024) === 64512) return "a private (unique local) address";
  if ((g0 & 65472) === 65152) return "a link-local address";
  if ((g0 & 65472) === 65216) return "a private (site-local) address";
  if ((g0 & 65280) === 65280) return "a multicast address";
  return void 0;
}
var positiveInt = z.union([
  z.number().int().positive(),
  z.string().regex(/^[1-9]\d*$/, "must be a positive integer")
]);
function isWellFormed(text) {
  return text.isWellFormed();
}
var ILL_FORMED = "contains an unpaired UTF-16 surrogate (often a string cut in the middle of an emoji): it would be sent as U+FFFD or as an escape while the hash covers the original text, so fix the text before sending";
function illFormedText(value, path, out) {
  if (typeof value === "string") {
    if (!isWellFormed(value)) out.push({ path, message: ILL_FORMED });
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, member] of Object.entries(value)) {
    if (!isWellFormed(key)) out.push({ path, message: `has a field name that ${ILL_FORMED}` });
    else illFormedText(member, path === "" ? key : `${path}.${key}`, out);
  }
}
function assertWellFormedText(operation, wire) {
  const issues = [];
  illFormedText(wire, "", issues);
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
}
function asObject(json) {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return void 0;
  return json;
}
function lenient(body, stringFields) {
  const out = { ...body };
  for (const name of stringFields) {
    const value = out[name];
    if (value === void 0 || typeof value === "string") continue;
    if (typeof value === "number") out[name] = String(value);
    else delete out[name];
  }
  return out;
}
function reconcileBy(field, key, lookup) {
  return ({ wire }) => {
    const value = wire && pickInputs(wire, [field])[0]?.value;
    return value ? { key, value, lookup: lookup(value) } : void 0;
  };
}

// src/signature.ts
var NON_ASCII = /[\u0080-\uffff]/;
function asciiUpper(text) {
  return NON_ASCII.test(text) ? text.replace(/[a-z]+/g, (run) => run.toUpperCase()) : text.toUpperCase();
}
function upper(text, mode) {
  return mode === "unicode" ? text.toUpperCase() : asciiUpper(text);
}
function reveal(password) {
  return typeof password === "string" ? password : password.reveal();
}
function hex(algorithm, text) {
  return hash(algorithm, text, "hex");
}
function sign(values, password, digest = "md5", options = {}) {
  const text = upper(values.join("") + reveal(password), options.uppercase);
  return hex("sha1", hex(digest, text));
}
function explainSignature(inputs, password, digest = "md5", options = {}) {
  const named = inputs.map(
    (input, i) => typeof input === "string" ? { name: `#${i + 1}`, value: input } : input
  );
  const joined = named.map((input) => input.value ?? "").join("");
  const innerHex = hex(digest, upper(joined + reveal(password), options.uppercase));
  return {
    digest,
    inputs: named,
    concatenation: `${joined}{password}`,
    uppercased: `${upper(joined, options.uppercase)}{PASSWORD}`,
    innerHex,
    hash: hex("sha1", innerHex)
  };
}
function pickInputs(fields, names) {
  return names.map((name) => ({ name, value: readPath(fields, name) }));
}
function readPath(fields, path) {
  let current = fields;
  for (const step of path.split(".")) {
    if (typeof current !== "object" || current === null) return void 0;
    current = current[step];
  }
  if (current === void 0 || current === null) return void 0;
  return typeof current === "string" ? current : String(current);
}
var SIGNED_OPERATIONS = {
  "checkout.purchase": {
    action: void 0,
    inputs: ["order.number", "order.amount", "order.currency", "order.description"]
  },
  "checkout.credit": { action: void 0, inputs: ["order_id", "order_amount", "order_currency", "order_description"] },
  // Only one of the two is sent; an absent field adds nothing.
  "checkout.status": { action: void 0, inputs: ["payment_id", "order_id"] },
  "s2s.getTransStatus": { action: "GET_TRANS_STATUS", inputs: ["trans_id"] },
  "s2s.getTransStatusByOrder": { action: "GET_TRANS_STATUS_BY_ORDER", inputs: ["order_id"] },
  "s2s.capture": { action: "CAPTURE", inputs: ["trans_id"] },
  "s2s.void": { action: "VOID", inputs: ["trans_id"] },
  "s2s.creditVoid": { action: "CREDITVOID", inputs: ["trans_id"] },
  "s2s.recurringSale": { action: "RECURRING_SALE", inputs: ["order_id"] },
  // Not published for this scheme. The one public fact (another brand's MD5 scheme) signs the
  // password alone, which any captured request replays for any schedule: no default is guessed.
  "s2s.createSchedule": { action: "CREATE_SCHEDULE", inputs: null },
  "s2s.deleteSchedule": { action: "DELETE_SCHEDULE", inputs: ["schedule_id"] },
  "s2s.updateSchedule": { action: "UPDATE_SCHEDULE", inputs: ["schedule_id"] }
};
function signRequest(wire, ctx, operation) {
  assertWellFormedText(operation, wire);
  const published = SIGNED_OPERATIONS[operation]?.inputs ?? null;
  const names = ctx.hashInputs(operation) ?? published ?? refuseUnconfigured(operation);
  wire["hash"] = ctx.sign(pickInputs(wire, names));
}
function refuseUnconfigured(operation) {
  throw new RequestValidationError(operation, [
    {
      path: `hashInputs.${operation}`,
      message: `the hash inputs of this action are not published, so the SDK will not guess them: a password-only hash would let anyone who sees one request sign any schedule and test passwords offline. Set hashInputs: { '${operation}': [...] } on the client to the fields your gateway signs (ask its support), or [] to sign the password alone knowingly; nothing was sent`
    }
  ]);
}

// src/callbacks.ts
var CHECKOUT_CALLBACK_FIELDS = Object.freeze([
  "id",
  "order_number",
  "order_amount",
  "order_currency",
  "order_description"
]);
var DEFAULT_CALLBACK_MAX_BYTES = 64 * 1024;
var Callbacks = class {
  #password;
  #defaults;
  #logger;
  /** @internal */
  constructor(password, defaults = {}, logger) {
    this.#password = password;
    this.#defaults = defaults;
    this.#logger = logger;
  }
  /**
   * The callback inbox over the raw body: verifies, deduplicates on the platform's key across every
   * instance sharing `store`, answers `OK` at once and runs `onEvent` at most once per key (rules
   * Platform 16, 23). Adapters: `handler.node` (node:http, Express), `handler.fetch` (Fetch API).
   */
  handler(options) {
    return new CallbackHandler(this, options, this.#logger);
  }
  /**
   * Verifies a callback from its raw body (form-encoded, or JSON) and returns the typed event, or
   * throws `SignatureVerificationError`. Pass the body exactly as received: the signature covers
   * the received strings, so a re-parsed object (numbers, trimmed or re-encoded values) cannot be
   * verified reliably and is refused. In order: the size cap (before any parsing), one linear parse,
   * every signed field present and non-empty, then the hash, compared in constant time.
   */
  verify(rawBody, options = {}) {
    const order = options.fields ?? this.#defaults.fields ?? CHECKOUT_CALLBACK_FIELDS;
    const digest = options.digest ?? this.#defaults.digest ?? "md5";
    const uppercase = options.uppercase ?? this.#defaults.uppercase ?? "ascii";
    const maxBodyBytes = options.maxBodyBytes ?? this.#defaults.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES;
    const fields = parseRawBody(rawBody, maxBodyBytes);
    const received = fields["hash"];
    const missing = order.filter((name) => fields[name] === void 0);
    const empty = order.filter((name) => fields[name] === "");
    const diagnostic = () => {
      const explanation = explainSignature(
        order.map((name) => ({ name, value: fields[name] })),
        this.#password,
        digest,
        { uppercase }
      );
      return {
        fieldsUsed: [...order],
        fieldsPresent: order.filter((name) => fields[name] !== void 0),
        fieldsMissing: missing,
        fieldsEmpty: empty,
        fieldsReceived: Object.keys(fields),
        digest,
        concatenation: explanation.concatenation
      };
    };
    if (received === void 0 || received === "") {
      throw new SignatureVerificationError(
        "missing_hash",
        'callback has no "hash" field; it cannot be verified.',
        diagnostic()
      );
    }
    if (missing.length > 0 || empty.length > 0) {
      const parts = [
        missing.length > 0 ? `absent: ${missing.join(", ")}` : "",
        empty.length > 0 ? `empty: ${empty.join(", ")}` : ""
      ].filter(Boolean);
      throw new SignatureVerificationError(
        "missing_signed_fields",
        `callback lacks signed fields (${parts.join("; ")}); every field of the signature (${order.join(", ")}) must be present and non-empty, so it is refused without checking the hash. If your account signs other fields, set callbackFields.`,
        diagnostic()
      );
    }
    const expected = sign(
      order.map((name) => fields[name] ?? ""),
      this.#password,
      digest,
      { uppercase }
    );
    if (!constantTimeEqual(expected, received)) {
      throw new SignatureVerificationError(
        "hash_mismatch",
        "callback signature does not verify. Check the password of this environment, the digest and the callback field order.",
        diagnostic()
      );
    }
    return fields;
  }
};
function constantTimeEqual(expected, received) {
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(received, "utf8");
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
var RAW_BODY_HINT = 'callbacks.verify needs the raw request body (string, Buffer or Uint8Array) exactly as received: the signature covers the received strings, and a parsed object has lost them. In Express use express.raw({ type: "*/*" }) for the callback route; in Fastify add a content-type parser that keeps the body as a string or Buffer.';
function parseRawBody(rawBody, maxBodyBytes = DEFAULT_CALLBACK_MAX_BYTES) {
  let text;
  if (typeof rawBody === "string") {
    checkSize(Buffer.byteLength(rawBody, "utf8"), maxBodyBytes);
    text = rawBody;
  } else if (rawBody instanceof Uint8Array) {
    checkSize(rawBody.byteLength, maxBodyBytes);
    text = Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString("utf8");
  } else if (rawBody === void 0 || isEmptyObject(rawBody)) {
    throw new SignatureVerificationError(
      "empty_body",
      'callbacks.verify got no body: the request had none (a gateway callback always carries its signed fields), or nothing read it. For the second case, in Express mount express.raw({ type: "*/*" }) on the callback route.',
      { receivedType: describeType(rawBody) }
    );
  } else throw new SignatureVerificationError("not_raw_body", RAW_BODY_HINT, { receivedType: describeType(rawBody) });
  if (text.trim() === "") {
    throw new SignatureVerificationError(
      "empty_body",
      "callback body is empty: a gateway callback always carries its signed fields, so this request is not one (or its body was consumed before verification).",
      {}
    );
  }
  return text.trimStart().startsWith("{") ? parseJsonFields(text) : parseFormFields(text);
}
function checkSize(bytes, limit) {
  if (bytes <= limit) return;
  throw new SignatureVerificationError(
    "body_too_large",
    `callback body is ${bytes} bytes, over the ${limit}-byte limit (option maxBodyBytes); it is refused before parsing. A genuine callback is a few hundred bytes.`,
    { bytes, limitBytes: limit }
  );
}
function isEmptyObject(value) {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Reflect.ownKeys(value).length === 0;
}
function describeType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
function duplicate(name) {
  return new SignatureVerificationError(
    "duplicate_field",
    `callback body carries the field "${name}" more than once; it is refused because a duplicated field makes the signed value ambiguous.`,
    { duplicateField: name }
  );
}
function parseFormFields(text) {
  const out = /* @__PURE__ */ Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in out) throw duplicate(name);
    out[name] = value;
  }
  return { ...out };
}
function parseJsonFields(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SignatureVerificationError("unreadable_body", "callback body starts like JSON but is not valid JSON.", {});
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new SignatureVerificationError("unreadable_body", "callback JSON body is not an object.", {});
  }
  const out = /* @__PURE__ */ Object.create(null);
  for (const { key, source } of topLevelMembers(text)) {
    if (key in out) throw duplicate(key);
    const first = source.charCodeAt(0);
    if (first === QUOTE) out[key] = JSON.parse(source);
    else if (first === MINUS || first >= DIGIT_0 && first <= DIGIT_9) out[key] = source;
    else out[key] = JSON.stringify(JSON.parse(source));
  }
  return { ...out };
}
var QUOTE = 34;
var BACKSLASH = 92;
var MINUS = 45;
var DIGIT_0 = 48;
var DIGIT_9 = 57;
var COMMA = 44;
var CLOSE_BRACE = 125;
var CLOSE_BRACKET = 93;
function topLevelMembers(text) {
  const members = [];
  let i = skipSpace(text, text.indexOf("{") + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? JSON.parse(`"${raw}"`) : raw;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, source: text.slice(valueStart, valueEnd) });
    i = skipSpace(text, valueEnd);
    if (text[i] === ",") i = skipSpace(text, i + 1);
  }
  return members;
}
function isSpace(c) {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
function skipSpace(text, i) {
  let j = i;
  while (isSpace(text.charCodeAt(j))) j++;
  return j;
}
function stringEnd(text, i) {
  let j = i + 1;
  for (; ; ) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j += 2;
    else if (c === QUOTE) return j + 1;
    else j++;
  }
}
function skipValue(text, i) {
  const first = text[i];
  if (first === '"') return stringEnd(text, i);
  if (first !== "{" && first !== "[") {
    let j2 = i;
    for (let c = text.charCodeAt(j2); j2 < text.length && c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET && !isSpace(c); ) {
      c = text.charCodeAt(++j2);
    }
    return j2;
  }
  let depth = 0;
  let j = i;
  do {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j);
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    j++;
  } while (depth > 0);
  return j;
}
var FINAL_ORDER_STATUS = {
  success: {
    sale: "settled",
    capture: "settled",
    recurring: "settled",
    debit: "settled",
    transfer: "settled",
    credit: "settled",
    refund: "refund",
    void: "void",
    chargeback: "chargeback"
  },
  fail: { sale: "decline", recurring: "decline", debit: "decline" }
};
function isFinal(event) {
  if (event.type === void 0 || event.status === void 0 || event.order_status === void 0) return false;
  const expected = FINAL_ORDER_STATUS[event.status]?.[event.type];
  return expected !== void 0 && expected === event.order_status;
}
function dedupeKey(event) {
  return JSON.stringify([event.id ?? event.trans_id ?? "", event.type ?? event.action ?? "", event.status ?? ""]);
}
function isStuckChallenge(history) {
  const events = Array.isArray(history) ? history : [history];
  return events.at(-1)?.transStatus === "C";
}

// src/callback-handler.ts
var DEFAULT_HOLD_MS = 6e4;
var DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1e3;
var TEXT = { "content-type": "text/plain; charset=utf-8" };
function answer(status, body) {
  return { status, headers: TEXT, body };
}
function refuse(path, message) {
  throw new RequestValidationError("callbacks.handler", [{ path, message }], "options");
}
function checkDuration(name, value, fallback) {
  if (value === void 0) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) refuse(name, "must be a whole number of ms >= 1");
  return value;
}
var CallbackHandler = class {
  #callbacks;
  #options;
  #store;
  #holdMs;
  #keepMs;
  #running = /* @__PURE__ */ new Set();
  #logger;
  /** @internal */
  constructor(callbacks, options, logger) {
    if (typeof options?.onEvent !== "function") refuse("onEvent", "must be a function");
    this.#callbacks = callbacks;
    this.#options = options;
    this.#logger = logger;
    this.#store = options.store ?? new MemoryClaimStore();
    this.#holdMs = checkDuration("holdMs", options.holdMs, DEFAULT_HOLD_MS);
    this.#keepMs = checkDuration("keepMs", options.keepMs, DEFAULT_KEEP_MS);
  }
  /**
   * Verifies `rawBody` (refused: 400 with the reason only, never the body), claims its dedupe key
   * (a duplicate, or one being processed elsewhere: 200 `OK`, nothing run; a store that fails: 503,
   * so the gateway delivers again) and answers 200 `OK`, starting `onEvent` right after.
   */
  async handle(rawBody) {
    let event;
    try {
      event = this.#callbacks.verify(rawBody, this.#options);
    } catch (error) {
      if (error instanceof SignatureVerificationError) {
        return answer(error.reason === "body_too_large" ? 413 : 400, error.reason);
      }
      throw error;
    }
    const key = `callback:${dedupeKey(event)}`;
    let token;
    try {
      token = await this.#store.claim(key, this.#holdMs);
    } catch (error) {
      this.#report(error, event);
      return answer(503, "store_unavailable");
    }
    if (token !== void 0) this.#track(this.#process(event, key, token));
    return answer(200, "OK");
  }
  /** Resolves when every `onEvent` started so far has finished. */
  async drain() {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
  /** node:http and Express: `http.createServer(handler.node)`, `app.post(path, handler.node)`. */
  node = (req, res) => {
    void readNodeBody(req, this.#options.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES).then((body) => typeof body === "string" || body instanceof Uint8Array ? this.handle(body) : body).catch((error) => {
      this.#report(error, void 0);
      return answer(500, "internal_error");
    }).then((response) => {
      try {
        res.writeHead(response.status, { ...response.headers });
        res.end(response.body);
      } catch (error) {
        this.#report(error, void 0);
      }
    });
  };
  /** Fetch API (Next.js route handlers, Hono, Bun, Deno): `export const POST = handler.fetch`. */
  fetch = async (request) => {
    const body = await readFetchBody(request, this.#options.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES);
    const response = body instanceof Uint8Array ? await this.handle(body) : body;
    return new Response(response.body, { status: response.status, headers: response.headers });
  };
  async #process(event, key, token) {
    try {
      await this.#options.onEvent(event);
    } catch (error) {
      this.#report(error, event);
      await this.#store.release(key, token).catch((e) => this.#report(e, event));
      return;
    }
    await this.#store.complete(key, token, this.#keepMs).catch((e) => this.#report(e, event));
  }
  #track(run) {
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
  }
  #report(error, event) {
    const onError = this.#options.onError;
    try {
      const line = `paywire callback inbox: ${describeFailure(error)}`;
      if (onError) onError(error, event);
      else if (this.#logger) this.#logger.warn(line, identify(event));
      else console.error(line, identify(event));
    } catch {
    }
  }
};
async function readNodeBody(req, maxBodyBytes) {
  if (req.body instanceof Uint8Array || typeof req.body === "string") return req.body;
  if (req.readableEnded) {
    return req.body === void 0 || isEmptyObject(req.body) ? "" : answer(500, "body_already_parsed: mount the callback route before any body parser, or use express.raw()");
  }
  const chunks = [];
  let size = 0;
  const stream = req[Symbol.asyncIterator]();
  for (let next = await stream.next(); !next.done; next = await stream.next()) {
    const bytes = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
    size += bytes.byteLength;
    if (size > maxBodyBytes) return { ...answer(413, "body_too_large"), headers: { ...TEXT, connection: "close" } };
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
async function readFetchBody(request, maxBodyBytes) {
  if (Number(request.headers.get("content-length")) > maxBodyBytes) return answer(413, "body_too_large");
  const chunks = [];
  let size = 0;
  const reader = request.body?.getReader();
  for (; ; ) {
    const next = await reader?.read();
    if (next === void 0 || next.done) break;
    size += next.value.byteLength;
    if (size > maxBodyBytes) {
      await reader?.cancel();
      return answer(413, "body_too_large");
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks);
}
function describeFailure(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
function identify(event) {
  if (!event) return {};
  return { id: event.id, trans_id: event.trans_id, type: event.type ?? event.action, status: event.status };
}
var DEDUP_WINDOW_MS = 15e3;
function lengthBetween(min, max) {
  const message = `must be ${min} to ${max} characters`;
  return z.string().min(min, message).max(max, message);
}
function purchaseParams(rules) {
  const url = redirectUrl(rules.allowPrivateRedirectUrls);
  const { min, max } = rules.orderDescriptionLength;
  return z.strictObject({
    order: withAmountRule(
      z.strictObject({
        number: lengthBetween(1, rules.orderNumberMaxLength),
        amount: amountText,
        currency: currencyCode,
        description: lengthBetween(min, max)
      }),
      "amount",
      "currency"
    ),
    success_url: url,
    cancel_url: url,
    methods: z.array(nonEmpty).optional(),
    channel_id: nonEmpty.optional(),
    session_expiry: z.number().int().positive().optional(),
    expiry_url: url.optional(),
    error_url: url.optional(),
    url_target: nonEmpty.optional(),
    req_token: z.boolean().optional(),
    card_token: z.array(nonEmpty, { error: "must be an array of strings for purchase" }).optional(),
    recurring_init: z.boolean().optional(),
    schedule_id: uuid.optional(),
    customer: z.strictObject({ name: nonEmpty.optional(), email: z.string().optional(), birth_date: z.string().optional() }).optional(),
    billing_address: z.strictObject({
      country: z.string().optional(),
      state: z.string().optional(),
      city: z.string().optional(),
      district: z.string().optional(),
      address: z.string().optional(),
      house_number: z.string().optional(),
      zip: z.string().optional(),
      phone: z.string().optional()
    }).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    custom_data: z.record(z.string(), z.unknown()).optional()
  });
}
var creditParams = withAmountRule(
  z.strictObject({
    order_id: nonEmpty,
    order_amount: amountText,
    order_currency: currencyCode,
    order_description: z.string(),
    card_token: z.string({
      error: (issue) => Array.isArray(issue.input) ? "must be a single string: the credit endpoint rejects an array card_token (only purchase takes an array)" : issue.input === void 0 ? "is required: the card_token of the original sale (purchase with req_token: true)" : "must be a string (the card_token of the original sale)"
    }).min(1, "must not be empty"),
    name: nonEmpty
  }),
  "order_amount",
  "order_currency"
);
var statusParams = z.strictObject({ payment_id: nonEmpty.optional(), order_id: nonEmpty.optional() }).refine((p) => p.payment_id === void 0 !== (p.order_id === void 0), {
  message: "give exactly one of payment_id or order_id"
});
var checkoutStatus = (orderId) => `gw.checkout.status({ order_id: ${JSON.stringify(orderId)} })`;
var operations = {
  purchase: defineOperation({
    name: "checkout.purchase",
    method: "POST",
    base: "checkout",
    path: (ctx) => ctx.paths.purchase,
    params: (ctx) => purchaseParams(ctx.rules),
    retry: withinWindow(DEDUP_WINDOW_MS),
    toWire: ({ order, success_url, cancel_url, ...optional }, ctx) => ({
      merchant_key: ctx.merchantKey(),
      operation: "purchase",
      ...optional,
      order,
      success_url,
      cancel_url
    }),
    finalize: signRequest,
    reconcile: reconcileBy("order.number", "order_id", checkoutStatus),
    decode: (value, reject) => {
      const body = value;
      if (typeof body["redirect_url"] !== "string") reject('has no "redirect_url"');
      return body;
    }
  }),
  credit: defineOperation({
    name: "checkout.credit",
    method: "POST",
    base: "checkout",
    path: "/api/v1/payment/card/credit",
    params: creditParams,
    precheck: (input) => typeof input === "object" && input !== null && "order" in input ? [
      {
        path: "order",
        message: "credit takes the flat shape (order_id, order_amount, order_currency, order_description); the nested order.* shape is rejected by the credit endpoint"
      }
    ] : [],
    retry: withinWindow(DEDUP_WINDOW_MS),
    toWire: (p, ctx) => ({
      merchant_key: ctx.merchantKey(),
      operation: "credit",
      order_id: p.order_id,
      order_amount: p.order_amount,
      order_currency: p.order_currency,
      order_description: p.order_description,
      card_token: p.card_token,
      name: p.name
    }),
    finalize: signRequest,
    reconcile: reconcileBy("order_id", "order_id", checkoutStatus),
    decode: (value) => lenient(value, ["result", "status", "payment_id", "order_id"])
  }),
  status: defineOperation({
    name: "checkout.status",
    method: "POST",
    base: "checkout",
    path: (ctx) => ctx.paths.status,
    params: statusParams,
    retry: safe,
    // rule Limits 2
    toWire: (p, ctx) => ({ merchant_key: ctx.merchantKey(), ...p }),
    finalize: signRequest,
    decode: (value) => lenient(value, [
      "payment_id",
      "date",
      "status",
      "reason",
      "card_token",
      "recurring_token"
    ])
  })
};
var Checkout = class {
  #ops;
  /** @internal */
  constructor(ops) {
    this.#ops = ops;
  }
  /** Creates a hosted-payment session (rule Platform 5); retried only inside the 15 s dedup window (rule Limits 1). */
  purchase(params, options) {
    return this.#ops.call(operations.purchase, { body: params }, options);
  }
  /** Refunds to the card of the original sale (its `card_token`); the payment must be settled (rule States 2). */
  credit(params, options) {
    return this.#ops.call(operations.credit, { body: params }, options);
  }
  /** Looks a payment up by `payment_id` or `order_id`; safe to repeat (rules States 3, Limits 2). */
  status(params, options) {
    return this.#ops.call(operations.status, { body: params }, options);
  }
};

// package.json
var package_default = {
  version: "0.1.0"};
var NOT_FOUND_CODE = 101e3;
var ROWS = [
  { reason: "hash_invalid", message: /hash is not valid/i },
  { reason: "duplicate_order", message: /duplicate payment/i },
  { reason: "refund_only_in_portal", codes: [210002], message: /refund via api is not supported/i },
  { reason: "refund_not_allowed", message: /refund is not allowed/i },
  { reason: "invalid_uuid", message: /not a valid uuid/i },
  { reason: "schedule_not_found", message: /schedule not found/i, entity: "schedule" },
  { reason: "payment_not_found", message: /payment not found/i, entity: "payment" },
  { reason: "incorrect_recurring_transaction", message: /incorrect transaction/i, entity: "recurring" },
  { reason: "ip_not_allowed", message: /ip is not allowed/i },
  { reason: "payment_does_not_exist", message: /payment does not exist/i, entity: "payment" },
  { reason: "order_does_not_exist", message: /order does not exist/i, entity: "order" },
  { reason: "transaction_does_not_exist", message: /transaction does not exist/i, entity: "transaction" },
  { reason: "route_not_supported", message: /route or parameters is not supported/i },
  { reason: "action_not_supported", codes: [204005], message: /payment action not supported/i },
  { reason: "card_token_invalid", codes: [205005], message: /card token is invalid/i },
  { reason: "capture_not_pending", codes: [208003], message: /not in pending status/i },
  { reason: "refund_requires_settled", codes: [208005], message: /associated with the settled state/i },
  { reason: "key_environment_mismatch", codes: [220002], message: /use merchant test key/i },
  // Last: a validation envelope whose errors[] named nothing more specific.
  { reason: "invalid_request", message: /request data is invalid/i }
];
var NOT_FOUND = /* @__PURE__ */ new Set([
  "not_found",
  "schedule_not_found",
  "payment_not_found",
  "incorrect_recurring_transaction",
  "payment_does_not_exist",
  "order_does_not_exist",
  "transaction_does_not_exist"
]);
function hintFor(reason, environment) {
  switch (reason) {
    case "hash_invalid":
      return "Check that `password` belongs to the same environment as the keys, the `digest` option (md5/sha256) and `hashInputs`; explainSignature() shows each step.";
    case "duplicate_order":
      return "This order_id was already used by this merchant: use a new order_id for a new payment attempt.";
    case "refund_not_allowed":
    case "refund_requires_settled":
      return "Refunds need a settled payment (and refunds enabled on the merchant account); a pending authorization is cancelled with VOID instead: gw.s2s.void({ trans_id }).";
    case "refund_only_in_portal":
      return "The acquirer accepts refunds only in the connector's admin portal, not via the API.";
    case "ip_not_allowed":
      return "Add this server's public IP address to the merchant allowlist in the admin panel.";
    case "key_environment_mismatch":
      return environment ? `Live and sandbox credentials are mixed: this client is configured for "${environment}", so merchantKey, clientKey, password and both base URLs must all be the ${environment} ones.` : "Live and sandbox credentials are mixed: keys, password and base URLs must all belong to the same environment (set `environment` for a sharper hint).";
    case "capture_not_pending":
      return "Only a pending payment can be captured: look its status up first (gw.s2s.captureIfPending does both).";
    case "route_not_supported":
      return "S2S CARD accepts only form-encoded POSTs to /post with one of the nine action names.";
    case "card_token_invalid":
      return "Use the card_token (a single string) of the original sale.";
    case "invalid_uuid":
      return "schedule_id must be a UUID.";
    case "unexpected_redirect":
      return "The SDK never follows redirects (no credential goes to another host): check checkoutUrl and s2sUrl, and any proxy in between.";
    case "unexpected_status":
      return "A 1xx is no final answer: check any proxy in between.";
    default:
      return void 0;
  }
}
var CardGatewayError = class extends ApiError {
  name = "CardGatewayError";
  /** The effective `error_code`, or `undefined` when the answer had none (e.g. an HTML 502). */
  code;
  /** The outer envelope's `error_code` as received. */
  envelopeCode;
  reason;
  /** `errors[]` as received (validation failures). */
  errors;
  /** The service's own message (the row's `error_message`). */
  errorMessage;
  /** Which entity was not found, when this is a not-found answer. */
  notFoundEntity;
  /**
   * True for every not-found answer, whatever its code: 101000 (transaction, order) or 100000
   * (payment, schedule, recurring; and pre-6.7.0 transaction/order, recognised by message).
   */
  isNotFound;
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  issues;
  constructor(init) {
    const status = init.response.status;
    const envelope = readEnvelope(init.response.json);
    const found = init.reason ? void 0 : classify(envelope, status);
    const reason = init.reason ?? found?.reason ?? "unknown";
    const code = found?.code ?? effectiveCode(envelope);
    const errorMessage = found?.message ?? envelope.message;
    const hint = hintFor(reason, init.environment);
    const message = init.message ?? describe(init.operation, status, code, errorMessage, envelope, hint);
    super({ ...init, body: init.response.json, code, message, mayHaveActed: mayHaveActed(reason, envelope, status) });
    this.code = code;
    this.envelopeCode = envelope.code;
    this.reason = reason;
    this.errors = envelope.errors;
    this.errorMessage = errorMessage;
    this.isNotFound = NOT_FOUND.has(reason);
    this.notFoundEntity = this.isNotFound ? found?.entity : void 0;
    this.issues = init.issues ?? [];
  }
};
brandErrorClass(CardGatewayError, "CardGatewayError");
function gatewayAnswers(environment) {
  const toError = (response, request) => new CardGatewayError({ ...request, response, environment });
  const unusable = (response, request, problem) => {
    const http = `HTTP ${response.status}`;
    if (problem.reason === "unreadable_response") {
      const message2 = `${request.operation}: the ${http} answer ${problem.message}.`;
      return new CardGatewayError({ ...request, response, environment, reason: problem.reason, message: message2 });
    }
    const listed = problem.issues.slice(0, 3).map((issue) => `${issue.path || "(body)"}: ${issue.message}`).join("; ");
    const message = `${request.operation}: the success answer (${http}) does not match the schema you passed: ${listed}.`;
    return new CardGatewayError({
      ...request,
      response,
      environment,
      reason: problem.reason,
      message,
      issues: problem.issues
    });
  };
  return {
    read(response, request) {
      const body = asObject(response.json);
      if (!body) throw unusable(response, request, { reason: "unreadable_response", message: "is not a JSON object" });
      if (isErrorEnvelope(body)) throw toError(response, request);
      return body;
    },
    toError,
    unusable
  };
}
function isErrorEnvelope(body) {
  if (body["result"] === "ERROR") return true;
  const code = body["error_code"];
  return body["result"] === void 0 && typeof body["error_message"] === "string" && code !== void 0;
}
function toCode(value) {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(value);
  return void 0;
}
function readDetail(item) {
  if (typeof item === "string") return { code: void 0, message: item, raw: item };
  if (typeof item !== "object" || item === null) return { code: void 0, message: String(item), raw: item };
  const o = item;
  const message = o["error_message"] ?? o["message"] ?? o["error"];
  return {
    code: toCode(o["error_code"] ?? o["code"]),
    message: typeof message === "string" ? message : JSON.stringify(item),
    raw: item
  };
}
function readEnvelope(json) {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { present: false, code: void 0, message: void 0, errors: [] };
  }
  const o = json;
  const message = o["error_message"];
  const errors = Array.isArray(o["errors"]) ? o["errors"].map(readDetail) : [];
  const present = o["result"] === "ERROR" || "error_code" in o || "error_message" in o;
  return {
    present,
    code: toCode(o["error_code"]),
    message: typeof message === "string" ? message : void 0,
    errors
  };
}
function mayHaveActed(reason, envelope, status) {
  if (reason === "unreadable_response" || reason === "response_schema_mismatch" || reason === "unexpected_redirect" || reason === "unexpected_status")
    return true;
  if (reason !== "unknown") return false;
  if (envelope.present && status >= 200 && status < 300) return false;
  return statusMayHaveActed(status);
}
function effectiveCode(envelope) {
  if (envelope.code !== 0) return envelope.code;
  return envelope.errors.find((d) => d.code !== void 0 && d.code !== 0)?.code ?? envelope.code;
}
function byCode(code) {
  return code === void 0 ? void 0 : ROWS.find((row) => row.codes?.includes(code));
}
function byMessage(message) {
  return message === void 0 ? void 0 : ROWS.find((row) => row.message?.test(message));
}
function notFoundOf(code, message) {
  if (code !== NOT_FOUND_CODE) return void 0;
  const row = byMessage(message);
  if (row?.entity !== void 0) return { reason: row.reason, code, message, entity: row.entity };
  const entity = ["transaction", "order", "payment"].find((name) => message?.toLowerCase().includes(name));
  return { reason: "not_found", code, message, entity };
}
function classifyLevel(code, message) {
  const unique = byCode(code);
  if (unique) return { reason: unique.reason, code, message, entity: unique.entity };
  const notFound2 = notFoundOf(code, message);
  if (notFound2) return notFound2;
  const row = byMessage(message);
  return row ? { reason: row.reason, code, message, entity: row.entity } : void 0;
}
function classify(envelope, status) {
  const code = effectiveCode(envelope);
  if (status < 200) return { reason: "unexpected_status", code, message: envelope.message, entity: void 0 };
  if (status >= 300 && status < 400) {
    return { reason: "unexpected_redirect", code, message: envelope.message, entity: void 0 };
  }
  for (const detail of envelope.errors) {
    const found2 = classifyLevel(detail.code, detail.message);
    if (found2 && found2.reason !== "invalid_request") return { ...found2, code: found2.code ?? code };
  }
  const found = classifyLevel(envelope.code === 0 ? code : envelope.code, envelope.message);
  return found ? { ...found, code } : void 0;
}
function describe(operation, status, code, errorMessage, envelope, hint) {
  const what = errorMessage ?? (status >= 300 && status < 400 ? `unexpected HTTP ${status} redirect` : `HTTP ${status} without an error envelope`);
  const codeText = code === void 0 ? `HTTP ${status}` : `error_code ${code}, HTTP ${status}`;
  const details = envelope.errors.length > 0 ? ` Errors: ${envelope.errors.map((d) => d.message).join("; ")}.` : "";
  return `${operation}: ${what} (${codeText}).${details}${hint ? ` ${hint}` : ""}`;
}
var S2S_OUTCOMES = {
  "s2s.capture": {
    applied: ["SETTLED", "REFUND", "REVERSAL", "CHARGEBACK"],
    notApplied: ["PENDING", "VOID", "DECLINED"]
  },
  "s2s.void": { applied: ["VOID"], notApplied: ["PENDING", "SETTLED", "REFUND", "REVERSAL", "CHARGEBACK", "DECLINED"] },
  // CREDITVOID answers ACCEPTED and settles later (rule Platform 11): SETTLED can still become REFUND.
  "s2s.creditVoid": { applied: ["REFUND", "REVERSAL"], notApplied: ["PENDING", "VOID", "DECLINED"] }
};
function notFound(error) {
  return error instanceof CardGatewayError && error.isNotFound;
}
async function reconcileCard(subject, checkout, s2s, options = {}) {
  const { operation, reconciliation: key } = subject;
  const settleAt = subject.since + (options.settleAfterMs ?? DEFAULT_SETTLE_AFTER_MS);
  const result = (outcome, state, evidence, next) => {
    if (outcome === "not_applied" && Date.now() < settleAt) {
      return {
        outcome: "still_unknown",
        operation,
        key,
        state,
        evidence: `${evidence}, but the call is recent enough to still arrive`,
        next: `reconcile again after ${new Date(settleAt).toISOString()} (settleAfterMs)`
      };
    }
    return { outcome, operation, key, state, evidence, ...next === void 0 ? {} : { next } };
  };
  const s2sRule = S2S_OUTCOMES[operation];
  if (s2sRule) {
    let state;
    try {
      state = await s2s.getTransStatus({ trans_id: key.value });
    } catch (error) {
      if (!notFound(error)) throw error;
      return result("not_applied", void 0, `GET_TRANS_STATUS finds no transaction ${key.value}`);
    }
    const status = String(state.status ?? "").toUpperCase();
    const seen = `GET_TRANS_STATUS shows ${key.value} as ${status || "no status"}`;
    if (s2sRule.applied.includes(status)) return result("applied", state, seen);
    if (s2sRule.notApplied.includes(status)) return result("not_applied", state, seen);
    return result(
      "still_unknown",
      state,
      seen,
      operation === "s2s.creditVoid" ? "a credit-void settles after its ACCEPTED answer: wait for its callback, or reconcile again in a few minutes" : "the transaction is between states: reconcile again in a minute"
    );
  }
  switch (operation) {
    case "checkout.purchase": {
      try {
        const state = await checkout.status({ order_id: key.value });
        return result("applied", state, `the status lookup finds order ${key.value} (${state.status ?? "no status"})`);
      } catch (error) {
        if (!notFound(error)) throw error;
        return result("not_applied", void 0, `the status lookup finds no order ${key.value}`);
      }
    }
    case "checkout.credit": {
      try {
        const state = await checkout.status({ order_id: key.value });
        return result(
          "applied",
          state,
          `the status lookup finds the credit ${key.value} (${state.status ?? "no status"})`
        );
      } catch (error) {
        if (!notFound(error)) throw error;
        return result(
          "still_unknown",
          void 0,
          `the status lookup finds no order ${key.value}`,
          "whether credits are listed by the status lookup is not published: check for a refund callback or the admin portal before refunding again"
        );
      }
    }
    case "s2s.recurringSale": {
      try {
        const state = await s2s.getTransStatusByOrder({ order_id: key.value });
        return result("applied", state, `GET_TRANS_STATUS_BY_ORDER finds ${key.value} (${state.status ?? "no status"})`);
      } catch (error) {
        if (!notFound(error)) throw error;
        return result("not_applied", void 0, `GET_TRANS_STATUS_BY_ORDER finds no order ${key.value}`);
      }
    }
    default:
      return result("still_unknown", void 0, `no lookup reads the outcome of ${operation}`, key.lookup);
  }
}
function choices(values) {
  const quoted = values.map((value) => JSON.stringify(value));
  if (quoted.length <= 2) return quoted.join(" or ");
  return `one of ${quoted.join(", ")}`;
}
function intervalUnit(units) {
  const message = `must be ${choices(units)}`;
  return z.string({ error: message }).refine((value) => units.includes(value), message);
}
var byTransId = z.strictObject({ trans_id: nonEmpty });
var byOrderId = z.strictObject({ order_id: nonEmpty });
var byScheduleId = z.strictObject({ schedule_id: uuid });
var amountOptional = withAmountRule(z.strictObject({ trans_id: nonEmpty, amount: amountText.optional() }), "amount");
var recurringSaleParams = (allowPrivateRedirectUrls) => withAmountRule(
  z.strictObject({
    order_id: nonEmpty,
    order_amount: amountText,
    order_description: nonEmpty,
    order_currency: currencyCode.optional(),
    recurring_first_trans_id: nonEmpty,
    recurring_token: nonEmpty,
    term_url_3ds: redirectUrl(allowPrivateRedirectUrls).optional()
  }),
  "order_amount",
  "order_currency"
);
var createScheduleParams = (units) => z.strictObject({
  name: nonEmpty,
  interval_length: positiveInt,
  interval_unit: intervalUnit(units),
  payments_count: positiveInt,
  schedule_id: uuid.optional()
});
var updateScheduleParams = (units) => z.strictObject({
  schedule_id: uuid,
  name: nonEmpty.optional(),
  interval_length: positiveInt.optional(),
  interval_unit: intervalUnit(units).optional(),
  payments_count: positiveInt.optional()
});
var STRING_FIELDS = [
  "action",
  "result",
  "status",
  "order_id",
  "trans_id",
  "trans_date",
  "descriptor",
  "amount",
  "currency",
  "decline_reason",
  "recurring_token",
  "card_token",
  "schedule_id",
  "redirect_url",
  "redirect_method"
];
function actionWire(operation) {
  const action = SIGNED_OPERATIONS[operation].action;
  return (params, ctx) => {
    const fields = { action, client_key: ctx.clientKey() };
    for (const [name, value] of Object.entries(params)) if (value !== void 0) fields[name] = String(value);
    return fields;
  };
}
var byTransIdLookup = reconcileBy(
  "trans_id",
  "trans_id",
  (v) => `gw.s2s.getTransStatus({ trans_id: ${JSON.stringify(v)} })`
);
var byScheduleLookup = reconcileBy(
  "schedule_id",
  "schedule_id",
  () => 'a repeat of the same call with this schedule_id (no action reads a schedule; a second DELETE_SCHEDULE answers "Schedule not found")'
);
var decodeAction = (value) => lenient(value, STRING_FIELDS);
var S2S_ACTIONS = {
  getTransStatus: defineOperation({
    name: "s2s.getTransStatus",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: byTransId,
    retry: safe,
    // a lookup (rules States 3, Limits 2)
    toWire: actionWire("s2s.getTransStatus"),
    finalize: signRequest,
    decode: decodeAction
  }),
  getTransStatusByOrder: defineOperation({
    name: "s2s.getTransStatusByOrder",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: byOrderId,
    retry: safe,
    toWire: actionWire("s2s.getTransStatusByOrder"),
    finalize: signRequest,
    decode: decodeAction
  }),
  capture: defineOperation({
    name: "s2s.capture",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: amountOptional,
    // amount: partial capture (rule Platform 11)
    retry: unsentOnly,
    // a repeated capture can act twice
    toWire: actionWire("s2s.capture"),
    finalize: signRequest,
    reconcile: byTransIdLookup,
    decode: decodeAction
  }),
  void: defineOperation({
    name: "s2s.void",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: byTransId,
    retry: unsentOnly,
    toWire: actionWire("s2s.void"),
    finalize: signRequest,
    reconcile: byTransIdLookup,
    decode: decodeAction
  }),
  creditVoid: defineOperation({
    name: "s2s.creditVoid",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: amountOptional,
    // amount: partial refund (rule Platform 11)
    retry: unsentOnly,
    toWire: actionWire("s2s.creditVoid"),
    finalize: signRequest,
    reconcile: byTransIdLookup,
    decode: decodeAction
  }),
  recurringSale: defineOperation({
    name: "s2s.recurringSale",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: (ctx) => recurringSaleParams(ctx.rules.allowPrivateRedirectUrls),
    retry: withinWindow(DEDUP_WINDOW_MS),
    // carries order_id: the gateway dedups within 15 s
    toWire: actionWire("s2s.recurringSale"),
    finalize: signRequest,
    reconcile: reconcileBy(
      "order_id",
      "order_id",
      (v) => `gw.s2s.getTransStatusByOrder({ order_id: ${JSON.stringify(v)} })`
    ),
    decode: decodeAction
  }),
  createSchedule: defineOperation({
    name: "s2s.createSchedule",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: (ctx) => createScheduleParams(ctx.rules.intervalUnits),
    retry: unsentOnly,
    toWire: actionWire("s2s.createSchedule"),
    finalize: signRequest,
    // hash inputs not published: the client must name them
    reconcile: byScheduleLookup,
    decode: decodeAction
  }),
  deleteSchedule: defineOperation({
    name: "s2s.deleteSchedule",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: byScheduleId,
    retry: unsentOnly,
    toWire: actionWire("s2s.deleteSchedule"),
    finalize: signRequest,
    reconcile: byScheduleLookup,
    decode: decodeAction
  }),
  updateSchedule: defineOperation({
    name: "s2s.updateSchedule",
    method: "POST",
    base: "s2s",
    path: "/post",
    encoding: "form",
    params: (ctx) => updateScheduleParams(ctx.rules.intervalUnits),
    retry: unsentOnly,
    toWire: actionWire("s2s.updateSchedule"),
    finalize: signRequest,
    reconcile: byScheduleLookup,
    decode: decodeAction
  })
};
var S2s = class {
  #ops;
  /** @internal */
  constructor(ops) {
    this.#ops = ops;
  }
  /** GET_TRANS_STATUS: reads a transaction's state; safe to repeat (rule States 3). */
  getTransStatus(params, options) {
    return this.#ops.call(S2S_ACTIONS.getTransStatus, { body: params }, options);
  }
  /** GET_TRANS_STATUS_BY_ORDER: reads a transaction's state by order_id; safe to repeat. */
  getTransStatusByOrder(params, options) {
    return this.#ops.call(S2S_ACTIONS.getTransStatusByOrder, { body: params }, options);
  }
  /** CAPTURE: only a `pending` payment (rule States 1: else 208003); never retried once sent. */
  capture(params, options) {
    return this.#ops.call(S2S_ACTIONS.capture, { body: params }, options);
  }
  /** VOID: cancels a `pending` authorization (rule States 2); never retried once sent. */
  void(params, options) {
    return this.#ops.call(S2S_ACTIONS.void, { body: params }, options);
  }
  /** CREDITVOID: answers `ACCEPTED`, outcome by callback; never retried once sent. */
  creditVoid(params, options) {
    return this.#ops.call(S2S_ACTIONS.creditVoid, { body: params }, options);
  }
  /** RECURRING_SALE: charges again from an initial recurring transaction (rule S2S 4: the pair must match). */
  recurringSale(params, options) {
    return this.#ops.call(S2S_ACTIONS.recurringSale, { body: params }, options);
  }
  /** CREATE_SCHEDULE: answers with `schedule_id` (rule Platform 12). */
  createSchedule(params, options) {
    return this.#ops.call(S2S_ACTIONS.createSchedule, { body: params }, options);
  }
  /** DELETE_SCHEDULE: the way to cancel a schedule (rule S2S 1: there is no CANCEL_SCHEDULE). */
  deleteSchedule(params, options) {
    return this.#ops.call(S2S_ACTIONS.deleteSchedule, { body: params }, options);
  }
  /** UPDATE_SCHEDULE: changes a schedule; schedule_id must be a UUID (rule S2S 2). */
  updateSchedule(params, options) {
    return this.#ops.call(S2S_ACTIONS.updateSchedule, { body: params }, options);
  }
  /**
   * Rule States 3 as one call: a status lookup, then CAPTURE only when the status is `PENDING`.
   * It cannot capture twice: the lookup is the only retried step, and CAPTURE is sent at most once
   * (`unsent-only`); if its outcome is unknown the error says `requestSent`, reconcile with a lookup.
   */
  async captureIfPending(params, call) {
    const lookup = await this.getTransStatus({ trans_id: params.trans_id }, call);
    if (lookup.status?.toUpperCase() !== "PENDING") return { captured: false, lookup, status: lookup.status };
    const capture = await this.capture(params, call);
    return { captured: true, lookup, capture };
  }
};

// src/client.ts
function invalid(path, message) {
  throw new RequestValidationError("CardGateway", [{ path, message }], "options");
}
function isCount(value, min) {
  return typeof value === "number" && Number.isInteger(value) && value >= min;
}
function resolveRules(allowPrivate, given) {
  if (allowPrivate !== void 0 && typeof allowPrivate !== "boolean") {
    invalid("allowPrivateRedirectUrls", "must be true or false");
  }
  const overrides = given ?? {};
  const units = overrides.intervalUnits ?? DEFAULT_RULES.intervalUnits;
  if (!Array.isArray(units) || units.length === 0 || !units.every((u) => typeof u === "string" && u !== "")) {
    invalid("platformDefaults.intervalUnits", "must be a non-empty list of non-empty strings");
  }
  const description = overrides.orderDescriptionLength ?? DEFAULT_RULES.orderDescriptionLength;
  if (!isCount(description.min, 0) || !isCount(description.max, 1) || description.min > description.max) {
    invalid(
      "platformDefaults.orderDescriptionLength",
      "must be { min, max } with whole numbers 0 <= min <= max, max >= 1"
    );
  }
  const numberMax = overrides.orderNumberMaxLength ?? DEFAULT_RULES.orderNumberMaxLength;
  if (!isCount(numberMax, 1)) invalid("platformDefaults.orderNumberMaxLength", "must be a whole number >= 1");
  return {
    allowPrivateRedirectUrls: allowPrivate === true,
    intervalUnits: Object.freeze([...units]),
    orderDescriptionLength: Object.freeze({ min: description.min, max: description.max }),
    orderNumberMaxLength: numberMax
  };
}
function checkUppercase(value, path = "platformDefaults.uppercase") {
  if (value === void 0) return "ascii";
  if (value === "ascii" || value === "unicode") return value;
  return invalid(path, 'must be "ascii" or "unicode"');
}
function checkPath(name, value, fallback) {
  if (value === void 0) return fallback;
  if (!value.startsWith("/") || value.startsWith("//")) {
    invalid(name, 'must be a path starting with a single "/"');
  }
  return value;
}
var CardGateway = class {
  /** Checkout: purchase, credit, status. */
  checkout;
  /** S2S CARD: the nine actions and `captureIfPending`. */
  s2s;
  /** Callback verification over raw bodies. */
  callbacks;
  #http;
  #checkoutUrl;
  #s2sUrl;
  #merchantKey;
  #clientKey;
  #password;
  #digest;
  #uppercase;
  #environment;
  #ops;
  constructor(options) {
    const credentials = readCredentials("CardGateway", options, {
      merchantKey: "text",
      clientKey: "text",
      password: "text"
    });
    const {
      checkoutUrl,
      s2sUrl,
      merchantKey: _merchantKey,
      clientKey: _clientKey,
      password: _password,
      environment,
      digest,
      hashInputs,
      callbackFields,
      paths,
      allowPrivateRedirectUrls,
      platformDefaults,
      ...core
    } = options;
    this.#checkoutUrl = checkBaseUrl("checkoutUrl", checkoutUrl, "CardGateway");
    this.#s2sUrl = checkBaseUrl("s2sUrl", s2sUrl, "CardGateway");
    this.#merchantKey = credentials.merchantKey;
    this.#clientKey = credentials.clientKey;
    this.#password = credentials.password;
    if (digest !== void 0 && digest !== "md5" && digest !== "sha256") {
      invalid("digest", 'must be "md5" or "sha256"');
    }
    this.#digest = digest ?? "md5";
    const rules = resolveRules(allowPrivateRedirectUrls, platformDefaults);
    this.#uppercase = checkUppercase(platformDefaults?.uppercase);
    this.#environment = environment;
    this.#http = new HttpClient({ packageName: "card-gateway", packageVersion: package_default.version, options: core });
    const overrides = { ...hashInputs };
    const resolvedPaths = {
      purchase: checkPath("paths.purchase", paths?.purchase, "/api/v1/session"),
      status: checkPath("paths.status", paths?.status, "/api/v1/payment/status")
    };
    const context = {
      paths: resolvedPaths,
      rules,
      merchantKey: () => this.#merchantKey.reveal(),
      clientKey: () => this.#clientKey.reveal(),
      sign: (inputs) => sign(
        inputs.map((input) => input.value ?? ""),
        this.#password,
        this.#digest,
        { uppercase: this.#uppercase }
      ),
      hashInputs: (operation) => overrides[operation]
    };
    this.#ops = new OperationClient({
      http: this.#http,
      baseUrls: { checkout: this.#checkoutUrl, s2s: this.#s2sUrl },
      context,
      answers: gatewayAnswers(environment)
    });
    this.checkout = new Checkout(this.#ops);
    this.s2s = new S2s(this.#ops);
    this.callbacks = new Callbacks(
      this.#password,
      {
        digest: this.#digest,
        uppercase: checkUppercase(platformDefaults?.callbackUppercase, "platformDefaults.callbackUppercase"),
        ...callbackFields ? { fields: callbackFields } : {}
      },
      core.logger
    );
  }
  /** The hash of `values` (wire strings in order) with the password appended, as this client signs: for raw requests. */
  sign(values) {
    return sign(values, this.#password, this.#digest, { uppercase: this.#uppercase });
  }
  /** Each step of the signature of `inputs` with this client's password (masked) and digest. */
  explainSignature(inputs) {
    return explainSignature(inputs, this.#password, this.#digest, { uppercase: this.#uppercase });
  }
  /**
   * The raw escape hatch: any path under `checkoutUrl` or `s2sUrl`, same transport, retries and
   * `CardGatewayError`. Add keys and `hash` yourself (see `sign`). Resolves with the JSON object the
   * gateway answers; pass `schema` to check and type it. Default retry: `safe` for GET,
   * `unsent-only` otherwise.
   */
  request(input, options) {
    return this.#ops.request(input, options);
  }
  /**
   * Settles an unknown outcome (an error with `outcomeUnknown`, or an intent from `pendingIntents()`)
   * by the operation's safe lookup: CAPTURE, VOID, CREDITVOID by GET_TRANS_STATUS; purchase and credit
   * by the status lookup of their order_id; RECURRING_SALE by GET_TRANS_STATUS_BY_ORDER (rule States 3).
   * Lookups only: it never sends the call again. `still_unknown` says what to try next. A lookup that
   * finds nothing proves the call did not act only `settleAfterMs` (default 2 minutes) after it.
   */
  async reconcile(subject, options) {
    return reconcileCard(reconcileSubject(subject, "CardGateway"), this.checkout, this.s2s, options);
  }
  /** The money-moving calls of the `journal` still open: sent (or about to be) with no definite outcome yet. */
  pendingIntents() {
    return openIntentsOf(this.#http);
  }
  /**
   * Reconciles every open intent of the `journal` (after a crash or a restart), oldest first, and
   * closes those now settled; `still_unknown` ones stay open. Lookups only.
   */
  reconcileAll(options) {
    return reconcileJournal(this.#http, "CardGateway", (intent) => this.reconcile(intent, options));
  }
  /** The Checkout base URL (no trailing slash). */
  get checkoutUrl() {
    return this.#checkoutUrl;
  }
  /** The S2S CARD base URL (no trailing slash); actions go to `{s2sUrl}/post`. */
  get s2sUrl() {
    return this.#s2sUrl;
  }
  /** The User-Agent this client sends. */
  get userAgent() {
    return this.#http.userAgent;
  }
  /** Closes the client's connection pool (a caller-supplied `dispatcher` is left open); calling it again is fine. */
  close() {
    return this.#http.close();
  }
  toJSON() {
    return { checkoutUrl: this.#checkoutUrl, s2sUrl: this.#s2sUrl, environment: this.#environment };
  }
  [inspect.custom]() {
    return `CardGateway ${inspect(this.toJSON())}`;
  }
};

// src/payment-state.ts
var STAGE = {
  prepare: 0,
  redirect: 1,
  "3ds": 1,
  // Below an authorisation: with cascading, a decline by one acquirer can be followed by a success
  // on another (rule Platform 24), never the other way round.
  decline: 2,
  pending: 3,
  settled: 4,
  void: 5,
  refund: 5,
  reversal: 5,
  chargeback: 6
};
function stageOf(event) {
  return event.order_status === void 0 ? -1 : STAGE[event.order_status] ?? -1;
}
function ahead(a, b) {
  if (stageOf(a) !== stageOf(b)) return stageOf(a) > stageOf(b);
  if (isFinal(a) !== isFinal(b)) return isFinal(a);
  return JSON.stringify(Object.entries(a).sort()) > JSON.stringify(Object.entries(b).sort());
}
function foldPayment(deliveries, options) {
  const stuckAfterMs = options.stuckAfterMs ?? 15 * 60 * 1e3;
  let best;
  let last;
  const transIds = /* @__PURE__ */ new Set();
  for (const delivery of deliveries) {
    const { event, at } = delivery;
    if (event.trans_id) transIds.add(event.trans_id);
    if (best === void 0 || ahead(event, best)) best = event;
    if (last === void 0 || at > last.at || at === last.at && ahead(event, last.event)) last = delivery;
  }
  const challengeOpen = last?.event.transStatus === "C" && best !== void 0 && stageOf(best) <= stageOf(last.event);
  return {
    status: best?.order_status,
    event: best,
    final: best !== void 0 && isFinal(best),
    transIds: [...transIds].sort(),
    stuckChallenge: challengeOpen && last !== void 0 && options.now - last.at >= stuckAfterMs
  };
}

export { CHECKOUT_CALLBACK_FIELDS, CallbackHandler, CardGateway, CardGatewayError, DEDUP_WINDOW_MS, SIGNED_OPERATIONS, asciiUpper, dedupeKey, explainSignature, foldPayment, formatAmount, isFinal, isStuckChallenge, sign };
