// The rest of a session past its first steps (js/front.js loads it the first time a path
// other than the hot ones of `track()` and `shouldDropResponse()` runs), and the guard, whose
// session always needs it. The Node build bundles this file into dist/node/session.cjs, which
// the entry requires then (issue #24, start-up); the other builds import it with the front.

export { Session } from "./session.js";
export { createGuardTransport } from "./guard.js";
