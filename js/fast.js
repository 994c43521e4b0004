// One crossing of the JS↔wasm boundary per operation. Reading a field of a JS object from
// wasm is a call into JS per field (and a UTF-8 decode per property name), so the entry
// modules' CancellationSession reads the few fields it needs here, in JS, and hands the
// wasm class the id as a number or a string. Only input the fast path is sure of takes it
// (ids that are strings or safe integers, no task fields, no timeout options); anything
// else — and any getter that throws — goes to the wasm method itself, which validates,
// reports and throws exactly as documented. Both paths end in the same core calls.

const isObject = (v) => typeof v === "object" && v !== null;
/** A valid request id or progress token: a string, or a safe integer. */
const isId = (v) => typeof v === "string" || Number.isSafeInteger(v);
const CANCELLED = "notifications/cancelled";
const PROGRESS = "notifications/progress";
const TASK_STATUS = "notifications/tasks/status";

/**
 * `params` of a request as the fast path takes it: `{ token }` (`undefined` when there is
 * none), or `null` when the request needs the full path (task fields, an invalid token).
 */
function plainParams(params) {
  if (!isObject(params)) return { token: undefined };
  if (params.task !== undefined || params.taskId !== undefined) return null;
  const meta = params._meta;
  const token = isObject(meta) ? meta.progressToken : undefined;
  return token === undefined || isId(token) ? { token } : null;
}

/**
 * @template {new (...args: any[]) => any} T
 * @param {T} Base the wasm-bindgen `CancellationSession` class
 * @returns {T} the same class, with the fast paths
 */
export function withFastPaths(Base) {
  return class CancellationSession extends Base {
    track(id, method, options) {
      let plan;
      try {
        plan = trackPlan(id, method, options);
      } catch {
        plan = undefined;
      }
      if (plan === undefined) return super.track(id, method, options);
      const token = plan.token;
      return typeof id === "string"
        ? this.__track(0, id, method, token !== undefined, typeof token === "number" ? token : 0, typeof token === "string" ? token : undefined, plan.signal, true)
        : this.__track(id, undefined, method, token !== undefined, typeof token === "number" ? token : 0, typeof token === "string" ? token : undefined, plan.signal, true);
    }

    shouldDropResponse(response) {
      let id;
      try {
        id = isObject(response) ? response.id : response;
      } catch {
        return super.shouldDropResponse(response);
      }
      if (isId(id)) {
        const verdict = typeof id === "string" ? this.__response(0, id) : this.__response(id, undefined);
        if (verdict !== 2) return verdict === 1;
      }
      return super.shouldDropResponse(response);
    }

    shouldDropProgress(token) {
      if (typeof token === "string") return this.__progress(0, token);
      if (Number.isSafeInteger(token)) return this.__progress(token, undefined);
      return super.shouldDropProgress(token);
    }

    receive(message) {
      let step;
      try {
        step = receivePlan(message);
      } catch {
        step = undefined;
      }
      switch (step?.kind) {
        case "pass":
          return true;
        case "response":
          return !this.shouldDropResponse(message);
        case "request":
          if (typeof step.id === "string") this.__request(0, step.id, step.method);
          else this.__request(step.id, undefined, step.method);
          return true;
        case "progress":
          return !this.shouldDropProgress(step.token);
        case "cancel":
          return typeof step.id === "string" ? this.__peerCancel(0, step.id, step.reason) : this.__peerCancel(step.id, undefined, step.reason);
        default:
          return super.receive(message);
      }
    }

    beforeSend(message) {
      let step;
      try {
        step = sendPlan(message);
      } catch {
        step = undefined;
      }
      switch (step?.kind) {
        case "pass":
          return message;
        case "response": {
          const send = typeof step.id === "string" ? this.__outgoing(0, step.id) : this.__outgoing(step.id, undefined);
          return send ? message : undefined;
        }
        case "request": {
          const { id, method, token } = step;
          const hasToken = token !== undefined;
          const tokenNumber = typeof token === "number" ? token : 0;
          const tokenString = typeof token === "string" ? token : undefined;
          if (typeof id === "string") this.__trackRequest(0, id, method, hasToken, tokenNumber, tokenString);
          else this.__trackRequest(id, undefined, method, hasToken, tokenNumber, tokenString);
          return message;
        }
        default:
          return super.beforeSend(message);
      }
    }
  };
}

/** `{ token, signal }` for `track()`'s fast path, or `undefined` for the full one. */
function trackPlan(id, method, options) {
  if (!isId(id) || typeof method !== "string") return undefined;
  if (options === undefined || options === null) return { token: undefined, signal: undefined };
  if (!isObject(options)) return undefined;
  if (options.timeoutMs !== undefined || options.maxTotalTimeoutMs !== undefined || options.resetTimeoutOnProgress !== undefined) return undefined;
  const params = plainParams(options.params);
  if (params === null) return undefined;
  return { token: params.token, signal: options.signal };
}

/** What `receive(message)` does, or `undefined` for the full path. */
function receivePlan(message) {
  if (!isObject(message)) return undefined;
  const method = message.method;
  const id = message.id;
  if (typeof method !== "string") return id === undefined ? { kind: "pass" } : { kind: "response" };
  if (id !== undefined) return isId(id) ? { kind: "request", id, method } : undefined;
  if (method === PROGRESS) {
    const params = message.params;
    return { kind: "progress", token: isObject(params) ? params.progressToken : undefined };
  }
  if (method === CANCELLED) {
    const params = message.params;
    if (!isObject(params) || Array.isArray(params)) return undefined;
    const requestId = params.requestId;
    const reason = params.reason;
    if ((typeof requestId !== "string" && typeof requestId !== "number") || (reason !== undefined && typeof reason !== "string")) return undefined;
    return { kind: "cancel", id: requestId, reason };
  }
  return method === TASK_STATUS ? undefined : { kind: "pass" };
}

/** What `beforeSend(message)` does, or `undefined` for the full path. */
function sendPlan(message) {
  if (!isObject(message)) return undefined;
  const method = message.method;
  const id = message.id;
  if (typeof method !== "string") {
    if (id === undefined) return { kind: "pass" };
    return isId(id) ? { kind: "response", id } : undefined;
  }
  if (id === undefined) return method === CANCELLED ? undefined : { kind: "pass" };
  if (!isId(id)) return undefined;
  const params = plainParams(message.params);
  return params === null ? undefined : { kind: "request", id, method, token: params.token };
}
