// The generated client (console/src/api/generated) names fetch's BodyInit, a DOM type; Node's fetch is undici's.
declare global {
  type BodyInit = import('undici-types').BodyInit;
}

export {};
