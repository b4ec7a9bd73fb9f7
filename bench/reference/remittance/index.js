import { recordAnswer, listAnswer, defineOperation, safe, unsentOnly, brandErrorClass, readCredentials, checkBaseUrl, HttpClient, OperationClient, problemAnswers, reconcileSubject, openIntentsOf, reconcileJournal, RequestValidationError, ProblemDetailsError } from '../core/index.js';
export { ApiError, ApiPromise, ConnectionError, MemoryClaimStore, MemoryIntentStore, PaywireError, ProblemDetailsError, RequestValidationError, ResponseTooLargeError, Secret, SignatureVerificationError, TimeoutError, UserAbortError } from '../core/index.js';
import { z } from 'zod';
import { inspect } from 'util';

// src/index.ts

// src/results.ts
var BENEFICIARY_KINDS = {
  beneficiaryId: "string or number",
  linkedRemitterId: "string",
  firstName: "string",
  lastName: "string",
  address1: "string",
  city: "string",
  state: "string",
  postcode: "string",
  country: "string",
  nationality: "string",
  telephone: "string",
  posid: "string",
  mobile: "string",
  idDetails: "string"
};
var RATE_QUOTE_KINDS = {
  sourceCurrency: "string",
  destCurrency: "string",
  destinationCountry: "string",
  serviceType: "string or number",
  amountType: "string or number",
  rate: "string or number",
  sendingAmountSLE: "string or number",
  receivingAmountFX: "string or number",
  fees: "string or number",
  totalAmountSLE: "string or number"
};
var BANK_ACCOUNT_KINDS = {
  bankCode: "string or number",
  accountNumber: "string or number",
  accountName: "string"
};
var DESTINATION_COUNTRY_KINDS = {
  countryCode: "string",
  countryName: "string",
  currency: "string",
  serviceTypes: "list of strings or numbers"
};
var DELIVERY_BANK_KINDS = {
  bankId: "string or number",
  bankName: "string",
  countryCode: "string"
};
var DELIVERY_BANK_BRANCH_KINDS = {
  branchId: "string or number",
  bankId: "string or number",
  branchName: "string",
  city: "string"
};
var COLLECTION_POINT_KINDS = {
  collectionPointId: "string or number",
  name: "string",
  city: "string",
  countryCode: "string"
};
var MOBILE_OPERATOR_KINDS = {
  networkId: "string or number",
  name: "string",
  countryCode: "string"
};
var MOBILE_OPERATOR_CREDIT_TYPE_KINDS = {
  creditTypeId: "string or number",
  networkId: "string or number",
  name: "string"
};
var BANK_KINDS = { bankCode: "string or number", bankName: "string" };
var TRANSACTION_STATUS_KINDS = {
  referenceNumber: "string or number",
  transactionId: "string or number",
  agentTransactionRef: "string",
  status: "string or number",
  amountSLE: "string or number",
  fees: "string or number",
  destCurrency: "string",
  receivingAmountFX: "string or number"
};
var TRANSFER_KINDS = {
  transactionId: "string or number",
  agentTransactionRef: "string",
  status: "string or number",
  transType: "string or number",
  amountSLE: "string or number",
  fees: "string or number",
  destCurrency: "string",
  receivingAmountFX: "string or number"
};
var CONFIRMATION_KINDS = {
  transactionId: "string or number",
  referenceNumber: "string or number",
  status: "string or number"
};
var text = z.string();
var amount = z.number({
  error: (issue) => issue.code === "invalid_type" && typeof issue.input === "number" ? `must be a finite number, not ${issue.input} (JSON cannot carry it)` : void 0
}).nonnegative();
var DEFAULT_SLE_DECIMALS = 2;
function amountSleWith(decimals) {
  const message = decimals === 0 ? "SLE amounts are whole numbers" : `SLE amounts have at most ${decimals} decimal place${decimals === 1 ? "" : "s"}`;
  return amount.refine((value) => Number(value.toFixed(decimals)) === value, { message });
}
var reference = z.string().min(1, "must not be empty");
function nonJsonAt(value, path) {
  if (value === null || typeof value === "string" || typeof value === "boolean") return void 0;
  if (typeof value === "number") return Number.isFinite(value) ? void 0 : { path, found: String(value) };
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const bad = nonJsonAt(item, [...path, index]);
      if (bad) return bad;
    }
    return void 0;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return { path, found: proto?.constructor?.name ?? "object" };
    for (const [key, item] of Object.entries(value)) {
      if (item === void 0) continue;
      const bad = nonJsonAt(item, [...path, key]);
      if (bad) return bad;
    }
    return void 0;
  }
  return { path, found: typeof value };
}
var jsonMember = z.unknown().superRefine((value, ctx) => {
  if (value === void 0) return;
  const bad = nonJsonAt(value, []);
  if (bad) {
    ctx.addIssue({
      code: "custom",
      path: bad.path,
      message: `must be a JSON value (string, finite number, boolean, null, array or plain object), got ${bad.found}`
    });
  }
});
var beneficiaryShape = {
  linkedRemitterId: text.optional(),
  firstName: text.optional(),
  lastName: text.optional(),
  address1: text.optional(),
  city: text.optional(),
  state: text.optional(),
  postcode: text.optional(),
  country: text.optional(),
  nationality: text.optional(),
  telephone: text.optional(),
  posid: text.optional(),
  mobile: text.optional(),
  idDetails: text.optional()
};
var BENEFICIARY_FIELDS = Object.keys(beneficiaryShape);
var beneficiaryCreateSchema = z.strictObject(beneficiaryShape);
var beneficiaryUpdateSchema = z.object(beneficiaryShape).catchall(jsonMember);
function ratesSchemaWith(amountSle) {
  return z.strictObject({
    sendingAmountSLE: amountSle.optional(),
    receivingAmountFX: amount.optional(),
    amountType: text.optional(),
    sourceCurrency: text.optional(),
    destinationCountry: text.optional(),
    destCurrency: text.optional(),
    serviceType: text.optional()
  });
}
var nameEnquirySchema = z.object({}).catchall(jsonMember);
function transactionShapeWith(amountSle) {
  return {
    remitterId: text.optional(),
    beneficiaryId: text.optional(),
    destinationCountry: text.optional(),
    transType: text.optional(),
    purpose: text.optional(),
    sourceOfIncome: text.optional(),
    paymentMethod: text.optional(),
    amountDeposited: text.optional(),
    bankBranchDeposited: text.optional(),
    serviceLevel: text.optional(),
    smsConfirmation: text.optional(),
    smsNotification: text.optional(),
    smsMobile: text.optional(),
    sourceCurrency: text.optional(),
    destinationCurrency: text.optional(),
    amountType: text.optional(),
    agentTransactionRef: reference.optional(),
    benefTransRef: text.optional(),
    amountToSend: text.optional(),
    amountSLE: amountSle.optional(),
    fees: amount.optional()
  };
}
function sleBodySchemas(sleDecimals) {
  const amountSle = amountSleWith(sleDecimals);
  const transactionShape = transactionShapeWith(amountSle);
  return {
    rates: ratesSchemaWith(amountSle),
    mobileTransfer: z.strictObject({
      ...transactionShape,
      beneficiaryMobileTransferNumber: text.optional(),
      beneficiaryMobileTransferNetworkId: text.optional(),
      beneficiaryMobileTransferNetworkCreditTypeId: text.optional()
    }),
    cashCollection: z.strictObject({
      ...transactionShape,
      collectionPointId: text.optional(),
      collectionPin: text.optional()
    }),
    bankTransfer: z.object(transactionShape).catchall(jsonMember)
  };
}

// src/beneficiaries.ts
function byPosId({ wire }) {
  const posid = wire?.["posid"];
  if (typeof posid !== "string") return void 0;
  return { key: "posid", value: posid, lookup: `remit.beneficiaries.getByPosId(${JSON.stringify(posid)})` };
}
var beneficiary = recordAnswer(BENEFICIARY_KINDS);
var beneficiaries = listAnswer(BENEFICIARY_KINDS);
var beneficiaryOperations = {
  create: defineOperation({
    name: "beneficiaries.create",
    method: "POST",
    path: "/api/beneficiaries",
    params: beneficiaryCreateSchema,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: beneficiary
  }),
  update: defineOperation({
    name: "beneficiaries.update",
    method: "PUT",
    path: "/api/beneficiaries",
    params: beneficiaryUpdateSchema,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: beneficiary
  }),
  getByPosId: defineOperation({
    name: "beneficiaries.getByPosId",
    method: "GET",
    path: "/api/beneficiaries/posid/{posid}",
    retry: safe,
    decode: beneficiaries
  }),
  search: defineOperation({
    name: "beneficiaries.search",
    method: "GET",
    path: "/api/beneficiaries/any/{searchValue}",
    retry: safe,
    decode: beneficiaries
  }),
  getByTelephone: defineOperation({
    name: "beneficiaries.getByTelephone",
    method: "GET",
    path: "/api/beneficiaries/telephone/{telephone}",
    retry: safe,
    decode: beneficiaries
  })
};
var Beneficiaries = class {
  #ops;
  /** @internal */
  constructor(ops) {
    this.#ops = ops;
  }
  /**
   * `POST /api/beneficiaries` (CreateBeneficiaryRequest, rule Resources 1). Resolves with the stored
   * beneficiary and its `beneficiaryId`, or `undefined` when the 201 has no body (rules Endpoints 1, Platform 12).
   */
  create(body, options) {
    return this.#ops.call(beneficiaryOperations.create, { body }, options);
  }
  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not published: known fields typed, others pass; rule Resources 8). */
  update(body, options) {
    return this.#ops.call(beneficiaryOperations.update, { body }, options);
  }
  /** `GET /api/beneficiaries/posid/{posid}`: the beneficiaries with this `posid` (rule Platform 12). */
  getByPosId(posid, options) {
    return this.#ops.call(beneficiaryOperations.getByPosId, { path: { posid } }, options);
  }
  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field (rule Platform 12). */
  search(searchValue, options) {
    return this.#ops.call(beneficiaryOperations.search, { path: { searchValue } }, options);
  }
  /** `GET /api/beneficiaries/telephone/{telephone}` (rule Platform 12). */
  getByTelephone(telephone, options) {
    return this.#ops.call(beneficiaryOperations.getByTelephone, { path: { telephone } }, options);
  }
};

// package.json
var package_default = {
  version: "0.1.0"};
var CREDENTIAL_HINT = "The API key goes in the x-code header: check the apiKey option.";
var HINTS = { unauthorized: CREDENTIAL_HINT, forbidden: CREDENTIAL_HINT };
var RemittanceError = class extends ProblemDetailsError {
  name = "RemittanceError";
  constructor(init) {
    super(init, HINTS);
  }
};
brandErrorClass(RemittanceError, "RemittanceError");
var bankAccount = recordAnswer(BANK_ACCOUNT_KINDS);
var lookupOperations = {
  rates: defineOperation({
    name: "lookup.rates",
    method: "POST",
    path: "/api/lookup/rates",
    params: (bodies) => bodies.rates,
    retry: safe,
    decode: recordAnswer(RATE_QUOTE_KINDS)
  }),
  nameEnquiry: defineOperation({
    name: "lookup.nameEnquiry",
    method: "POST",
    path: "/api/lookup/name-enquiry",
    params: nameEnquirySchema,
    retry: safe,
    decode: bankAccount
  }),
  nameEnquiryLookup: defineOperation({
    name: "lookup.nameEnquiryLookup",
    method: "GET",
    path: "/api/lookup/name-enquiry",
    query: true,
    retry: safe,
    decode: bankAccount
  }),
  destinationCountries: defineOperation({
    name: "lookup.destinationCountries",
    method: "GET",
    path: "/api/lookup/destination-countries",
    query: true,
    retry: safe,
    decode: listAnswer(DESTINATION_COUNTRY_KINDS)
  }),
  deliveryBankBranches: defineOperation({
    name: "lookup.deliveryBankBranches",
    method: "GET",
    path: "/api/lookup/delivery-bank-branches",
    query: true,
    retry: safe,
    decode: listAnswer(DELIVERY_BANK_BRANCH_KINDS)
  }),
  deliveryBanks: defineOperation({
    name: "lookup.deliveryBanks",
    method: "GET",
    path: "/api/lookup/delivery-banks",
    query: true,
    retry: safe,
    decode: listAnswer(DELIVERY_BANK_KINDS)
  }),
  collectionPoints: defineOperation({
    name: "lookup.collectionPoints",
    method: "GET",
    path: "/api/lookup/collection-points",
    query: true,
    retry: safe,
    decode: listAnswer(COLLECTION_POINT_KINDS)
  }),
  mobileOperatorCreditTypes: defineOperation({
    name: "lookup.mobileOperatorCreditTypes",
    method: "GET",
    path: "/api/lookup/mobile-operator-credit-types",
    query: true,
    retry: safe,
    decode: listAnswer(MOBILE_OPERATOR_CREDIT_TYPE_KINDS)
  }),
  mobileOperators: defineOperation({
    name: "lookup.mobileOperators",
    method: "GET",
    path: "/api/lookup/mobile-operators",
    query: true,
    retry: safe,
    decode: listAnswer(MOBILE_OPERATOR_KINDS)
  }),
  banks: defineOperation({
    name: "lookup.banks",
    method: "GET",
    path: "/api/lookup/banks",
    query: true,
    retry: safe,
    decode: listAnswer(BANK_KINDS)
  }),
  transactionStatus: defineOperation({
    name: "lookup.transactionStatus",
    method: "GET",
    path: "/api/lookup/transaction/status/{referenceNumber}",
    retry: safe,
    decode: recordAnswer(TRANSACTION_STATUS_KINDS)
  })
};
var Lookup = class {
  #ops;
  /** @internal */
  constructor(ops) {
    this.#ops = ops;
  }
  /** `POST /api/lookup/rates` (rule Resources 2): a quote of what the beneficiary receives and the fees (rule Platform 16). */
  rates(body, options) {
    return this.#ops.call(lookupOperations.rates, { body }, options);
  }
  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not published): the account's holder (rule Platform 18). */
  nameEnquiry(body, options) {
    return this.#ops.call(lookupOperations.nameEnquiry, { body }, options);
  }
  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query` (rule Platform 18). */
  nameEnquiryLookup(query, options) {
    return this.#ops.call(lookupOperations.nameEnquiryLookup, { query }, options);
  }
  /** `GET /api/lookup/destination-countries` (rule Platform 17). */
  destinationCountries(query, options) {
    return this.#ops.call(lookupOperations.destinationCountries, { query }, options);
  }
  /** `GET /api/lookup/delivery-banks` (rule Platform 17). */
  deliveryBanks(query, options) {
    return this.#ops.call(lookupOperations.deliveryBanks, { query }, options);
  }
  /** `GET /api/lookup/delivery-bank-branches` (rule Platform 17). */
  deliveryBankBranches(query, options) {
    return this.#ops.call(lookupOperations.deliveryBankBranches, { query }, options);
  }
  /** `GET /api/lookup/collection-points` (rule Platform 17). */
  collectionPoints(query, options) {
    return this.#ops.call(lookupOperations.collectionPoints, { query }, options);
  }
  /** `GET /api/lookup/mobile-operators` (rule Platform 17). */
  mobileOperators(query, options) {
    return this.#ops.call(lookupOperations.mobileOperators, { query }, options);
  }
  /** `GET /api/lookup/mobile-operator-credit-types` (rule Platform 17). */
  mobileOperatorCreditTypes(query, options) {
    return this.#ops.call(lookupOperations.mobileOperatorCreditTypes, { query }, options);
  }
  /** `GET /api/lookup/banks` (rule Endpoints 15: 502 on an upstream failure, retried; rule Platform 17). */
  banks(query, options) {
    return this.#ops.call(lookupOperations.banks, { query }, options);
  }
  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm answered
   * (`Confirmation.referenceNumber`, rule Platform 2). The way to reconcile a transfer whose outcome
   * is unknown (rule Platform 15).
   */
  transactionStatus(referenceNumber, options) {
    return this.#ops.call(lookupOperations.transactionStatus, { path: { referenceNumber } }, options);
  }
};
async function reconcileRemittance(subject, lookup) {
  const { operation, reconciliation: key } = subject;
  const base = { operation, key };
  try {
    const state = await lookup.transactionStatus(key.value);
    return {
      ...base,
      outcome: "applied",
      state: state ?? void 0,
      evidence: `the status lookup finds ${key.key} ${key.value} (status ${String(state?.status ?? "not given")})`
    };
  } catch (error) {
    if (!(error instanceof ProblemDetailsError && error.isNotFound)) throw error;
    return {
      ...base,
      outcome: "still_unknown",
      state: void 0,
      evidence: `the status lookup finds nothing under ${key.key} ${key.value}`,
      next: key.key === "agentTransactionRef" ? `the lookup is documented by referenceNumber only: resend the same transfer with agentTransactionRef ${JSON.stringify(key.value)} (the service refuses a reused one, so it cannot pay twice; a refusal proves the first arrived)` : "look the transaction up by the referenceNumber confirm answers, or ask the service"
    };
  }
}
function transferReconciliation({ idempotencyKey: ref }) {
  if (ref === void 0) return void 0;
  return {
    key: "agentTransactionRef",
    value: ref,
    lookup: `a resend with the same agentTransactionRef ${JSON.stringify(ref)} (a reused one is refused), or remit.lookup.transactionStatus(referenceNumber)`
  };
}
var AGENT_TRANSACTION_REF = { bodyField: "agentTransactionRef", generate: true };
var transfer = recordAnswer(TRANSFER_KINDS);
var transactionOperations = {
  mobileTransfer: defineOperation({
    name: "transactions.mobileTransfer",
    method: "POST",
    path: "/api/transactions/mobile-transfer",
    params: (bodies) => bodies.mobileTransfer,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    decode: transfer
  }),
  cashCollection: defineOperation({
    name: "transactions.cashCollection",
    method: "POST",
    path: "/api/transactions/cash-collection",
    params: (bodies) => bodies.cashCollection,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    decode: transfer
  }),
  bankTransfer: defineOperation({
    name: "transactions.bankTransfer",
    method: "POST",
    path: "/api/transactions/bank-transfer",
    params: (bodies) => bodies.bankTransfer,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    decode: transfer
  }),
  confirm: defineOperation({
    name: "transactions.confirm",
    method: "POST",
    path: "/api/transactions/confirm/{transactionId}",
    retry: unsentOnly,
    reconcile: ({ path }) => ({
      key: "transactionId",
      value: String(path["transactionId"]),
      lookup: "remit.lookup.transactionStatus(referenceNumber) with the reference of this transaction"
    }),
    decode: recordAnswer(CONFIRMATION_KINDS)
  })
};
var Transactions = class {
  #ops;
  /** @internal */
  constructor(ops) {
    this.#ops = ops;
  }
  /** `POST /api/transactions/mobile-transfer` (rules Resources 3–4): resolves with the `Transfer` (rule Platform 13). */
  mobileTransfer(body, options) {
    return this.#ops.call(transactionOperations.mobileTransfer, { body }, options);
  }
  /** `POST /api/transactions/cash-collection` (rules Resources 3, 5): resolves with the `Transfer` (rule Platform 13). */
  cashCollection(body, options) {
    return this.#ops.call(transactionOperations.cashCollection, { body }, options);
  }
  /**
   * `POST /api/transactions/bank-transfer` (method assumed, rule Platform 7; BankTransferTransactionRequest
   * fields not published, rule Resources 8): resolves with the `Transfer` (rule Platform 13).
   */
  bankTransfer(body, options) {
    return this.#ops.call(transactionOperations.bankTransfer, { body }, options);
  }
  /**
   * `POST /api/transactions/confirm/{transactionId}` (method assumed, rule Platform 7): commits the
   * transaction a transfer created (`Transfer.transactionId`) and resolves with the `referenceNumber`
   * for the status lookup (rules Platform 2, 14).
   */
  confirm(transactionId, options) {
    return this.#ops.call(transactionOperations.confirm, { path: { transactionId } }, options);
  }
};

// src/client.ts
var Remittance = class {
  /** Register, update and find beneficiaries. */
  beneficiaries;
  /** Rates, name enquiry, reference data, transaction status. */
  lookup;
  /** Transfers (mobile, cash collection, bank) and confirm. */
  transactions;
  #http;
  #baseUrl;
  #ops;
  constructor(options) {
    const { apiKey: key } = readCredentials("Remittance", options, { apiKey: "header" });
    const { baseUrl, apiKey: _key, platformDefaults, ...coreOptions } = options;
    this.#baseUrl = checkBaseUrl("baseUrl", baseUrl, "Remittance");
    this.#http = new HttpClient({ packageName: "remittance", packageVersion: package_default.version, options: coreOptions });
    this.#ops = new OperationClient({
      http: this.#http,
      baseUrls: { default: this.#baseUrl },
      context: sleBodySchemas(checkSleDecimals(platformDefaults?.sleDecimals)),
      authHeaders: () => ({ "x-code": key.reveal() }),
      answers: problemAnswers(RemittanceError)
    });
    this.beneficiaries = new Beneficiaries(this.#ops);
    this.lookup = new Lookup(this.#ops);
    this.transactions = new Transactions(this.#ops);
  }
  /** The base URL calls go to (no trailing slash). */
  get baseUrl() {
    return this.#baseUrl;
  }
  /**
   * The raw escape hatch: any method and path below the base URL, with the `x-code` key, retries
   * (`safe` for GET, `unsent-only` otherwise, unless `retry` says), and `RemittanceError`s.
   * Resolves with the parsed JSON, `undefined` for an empty body, or the text when the body is not
   * JSON; pass `schema` to check and type it.
   */
  request(input, options) {
    return this.#ops.request(input, options);
  }
  /** The User-Agent this client sends. */
  get userAgent() {
    return this.#http.userAgent;
  }
  /**
   * Settles an unknown transfer or confirm outcome (an error with `outcomeUnknown`, or an intent from
   * `pendingIntents()`) with the status lookup: found proves it was made; not found proves nothing.
   * Lookups only: it never sends the call again. `still_unknown` says what to try next.
   */
  async reconcile(subject) {
    return reconcileRemittance(reconcileSubject(subject, "Remittance"), this.lookup);
  }
  /** The money-moving calls of the `journal` still open: sent (or about to be) with no definite outcome yet. */
  pendingIntents() {
    return openIntentsOf(this.#http);
  }
  /** Reconciles every open intent of the `journal`, oldest first, and closes those now settled. Lookups only. */
  reconcileAll() {
    return reconcileJournal(this.#http, "Remittance", (intent) => this.reconcile(intent));
  }
  /** Closes the client's connection pool (a caller-supplied `dispatcher` is left open); calling it again is fine. */
  close() {
    return this.#http.close();
  }
  /** Base URL only: the key never prints. */
  toJSON() {
    return { baseUrl: this.#baseUrl };
  }
  [inspect.custom]() {
    return `Remittance { baseUrl: ${JSON.stringify(this.#baseUrl)} }`;
  }
};
function checkSleDecimals(value) {
  if (value === void 0) return DEFAULT_SLE_DECIMALS;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 20) return value;
  throw new RequestValidationError("Remittance", [
    { path: "platformDefaults.sleDecimals", message: "must be a whole number from 0 to 20" }
  ]);
}

export { BENEFICIARY_FIELDS, Beneficiaries, Lookup, Remittance, RemittanceError, Transactions };
