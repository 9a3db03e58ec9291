import { CodeRunError } from './code-run-error';
import { errorMessage } from '../../shared/error-text';
import { IsolateSandbox, type IsolateSandboxOptions } from './isolate-sandbox';
import { type ChildMessage, isHostMessage } from './sandbox-protocol';

/** The child side of CodeSandbox: runs requests from the parent in an IsolateSandbox. */
export const serveSandbox = (options: IsolateSandboxOptions): void => {
  const sandbox = new IsolateSandbox(options);
  const running = new Map<number, AbortController>();
  const reply = (message: ChildMessage): void => {
    if (process.connected) process.send?.(message);
  };

  process.on('message', (message: unknown) => {
    if (!isHostMessage(message)) return;
    if (message.type === 'cancel') {
      running.get(message.id)?.abort();
      return;
    }
    const { id, request } = message;
    const controller = new AbortController();
    running.set(id, controller);
    const onCatastrophicError = (text: string): void => reply({ type: 'crashed', id, message: text });
    void sandbox
      .run({ ...request, signal: controller.signal }, onCatastrophicError)
      .then(
        (output) => reply({ type: 'result', id, output }),
        (error: unknown) => {
          const failure =
            error instanceof CodeRunError
              ? error
              : new CodeRunError('unavailable', `code sandbox failed: ${errorMessage(error)}`);
          const { reason, message: text, logs, cpuMs } = failure;
          reply({ type: 'failure', id, reason, message: text, logs, ...(cpuMs !== undefined && { cpuMs }) });
        },
      )
      .finally(() => running.delete(id));
  });
  // The parent went away: nothing is left to answer to.
  process.on('disconnect', () => {
    sandbox.dispose();
    process.exit(0);
  });
  reply({ type: 'ready' });
};

if (require.main === module) {
  serveSandbox(JSON.parse(process.argv[2] ?? '{}') as IsolateSandboxOptions);
}
