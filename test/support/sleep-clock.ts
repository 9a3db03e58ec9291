/** A clock that only moves when code under test sleeps: pass `now` and `sleep`; `slept` lists every wait. */
export const sleepClock = () => {
  let time = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => time,
    sleep: (ms: number) => {
      slept.push(ms);
      time += ms;
      return Promise.resolve();
    },
  };
};
