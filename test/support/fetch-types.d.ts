// The generated client (test/generated-client) names fetch's BodyInit, a DOM type; Node's fetch is undici's.
declare global {
  type BodyInit = import('undici-types').BodyInit;
}

export {};
