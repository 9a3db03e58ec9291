import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../shared/error-text';

/** The part of a better-sqlite3 connection the checkpointer uses. */
interface PragmaConnection {
  readonly open: boolean;
  pragma(statement: string, options?: { simple?: boolean }): unknown;
}

/** SQLite's own default: the writing connection checkpoints once the WAL holds this many pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** How often the checkpointer copies the WAL back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 500;
/** How long `stop()` waits for the thread's last checkpoint before terminating it. */
const STOP_GRACE_MS = 2000;

/**
 * Runs in the thread, as plain JavaScript (a worker cannot load TypeScript). It opens its own connection
 * to the file and runs a PASSIVE checkpoint on every tick: it never waits for a lock and never blocks the
 * writer, and one that finds nothing new to copy does no I/O.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// A SqliteError reaches the app's thread as an object with its code and no message: rethrown as an Error.
const plain = (action) => {
  try {
    return action();
  } catch (error) {
    throw new Error(String(error && error.message) + (error && error.code ? ' (' + error.code + ')' : ''));
  }
};
const db = plain(() => new Database(workerData.file, { fileMustExist: true }));
const checkpoint = (mode) => plain(() => db.pragma('wal_checkpoint(' + mode + ')'));
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint('PASSIVE');
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export interface SqliteCheckpointer {
  /** Runs a last checkpoint and ends the thread; the writing connection checkpoints for itself again. */
  stop(): Promise<void>;
  /** The thread, for tests. */
  readonly worker: Worker;
}

/**
 * Moves WAL checkpoints off the event loop. A connection in WAL mode copies the log back into the database
 * file (and, with `synchronous = NORMAL`, fsyncs it) inside the commit that fills the log past 1000 pages:
 * in the run-cost benchmark that was a 10–15 ms stall of the event loop about every eighth run, 1.1–1.4 ms
 * per run on average, and on a slow disk it is worse. Here a worker thread with its own connection
 * checkpoints every {@link CHECKPOINT_INTERVAL_MS}, and the app's connection stops checkpointing once that
 * thread has opened the file. If the thread fails or exits, the app's connection checkpoints for itself
 * again, so the log never grows without bound.
 */
export async function startSqliteCheckpointer(
  file: string,
  connection: PragmaConnection,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): Promise<SqliteCheckpointer> {
  const logger = new Logger('SqliteCheckpointer');
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { file, driver: require.resolve('better-sqlite3'), intervalMs },
  });
  let stopping = false;
  let failure = '';
  // An 'error' is always followed by 'exit'.
  worker.on('error', (error) => (failure = `: ${errorMessage(error, { descriptive: true })}`));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code: number) => {
      if (!stopping) {
        logger.warn(`the WAL checkpoint thread exited (${code})${failure}; the app's connection checkpoints again`);
      }
      if (connection.open) connection.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
      resolve();
    }),
  );
  const ready = await new Promise<boolean>((resolve) => {
    worker.once('message', () => resolve(true));
    worker.once('exit', () => resolve(false));
  });
  if (!ready) return { worker, stop: () => Promise.resolve() };
  connection.pragma('wal_autocheckpoint = 0');
  // The thread must not keep a process alive that is otherwise done.
  worker.unref();
  return {
    worker,
    stop: async () => {
      if (stopping) return;
      stopping = true;
      const timeout = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
      worker.postMessage('stop');
      await exited;
      clearTimeout(timeout);
    },
  };
}
