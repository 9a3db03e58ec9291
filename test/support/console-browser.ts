import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { OpenAITestServer } from './openai-test-server';
import { ADMIN_KEY, startTestApp, type TestApp } from './test-app';
import { startToolBackend, type ToolBackend } from './tool-backend';
import { llmEnv } from './workflow-fixtures';

const ROOT = join(__dirname, '..', '..');

/** Waits until the first element `locator` matches is visible. */
export const visible = (locator: Locator): Promise<void> => locator.first().waitFor({ state: 'visible' });
const CHROMIUM = '/usr/bin/chromium';

/**
 * How long a browser spec's beforeAll may take to start its console stack (a Nest app, Chromium, a first page and a
 * sign-in) and its afterAll to close it: far above Jest's 60 s test timeout, which a loaded machine exceeded.
 */
export const CONSOLE_STACK_TIMEOUT_MS = 240_000;

/** The app listening on a real port (so the browser can load /console/), the scripted model, a tool backend and Chromium. */
export interface ConsoleStack {
  url: string;
  app: TestApp;
  llm: OpenAITestServer;
  backend: ToolBackend;
  browser: Browser;
  /** A fresh browser context and page at `width`, with console errors and page errors collected. */
  newPage(width?: number): Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
  close(): Promise<void>;
}

/** `env`: more of the app's environment (e.g. PRICES_FILE), beside the scripted model's. */
export async function startConsoleStack(env: Record<string, string> = {}): Promise<ConsoleStack> {
  if (!existsSync(join(ROOT, 'dist', 'console', 'index.html'))) {
    throw new Error('dist/console is missing: run npm run build:console first (npm run test:browser does)');
  }
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const app = await startTestApp(llmEnv(llm, env));
  const server = await app.app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  return {
    url,
    app,
    llm,
    backend,
    browser,
    async newPage(width = 1280) {
      // Reduced motion: fades end at once, so what a test reads (and what axe scans) is the settled page.
      const context = await browser.newContext({
        viewport: { width, height: width < 700 ? 844 : 900 },
        reducedMotion: 'reduce',
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      return { context, page, errors };
    },
    async close() {
      await browser.close();
      await app.close();
      await llm.close();
      await backend.close();
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Waits until the page has settled: no toast, no table still loading, and every finite animation or transition
 * finished (infinite ones, such as a spinner, never do). axe reads a half-faded element as low contrast.
 */
export async function settled(page: Page): Promise<void> {
  await page.locator('.n-message').first().waitFor({ state: 'detached' });
  await page.locator('.n-data-table--loading').first().waitFor({ state: 'detached' });
  // A string, evaluated in the page: this project's tsconfig has no DOM types. Twice: a finished fade may start another.
  for (let round = 0; round < 2; round += 1) {
    await page.evaluate(
      `Promise.all(document.getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)))`,
    );
  }
}

/** axe-core injected into the settled page; the serious and critical violations it finds. */
export async function seriousViolations(
  page: Page,
): Promise<Array<{ id: string; impact: string | null; help: string; targets: string[] }>> {
  await settled(page);
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  // A string, evaluated in the page: this project's tsconfig has no DOM types.
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)",
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')),
    }));
}

/** Signs in through the form, as a person would. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * Where a test registers how to undo what it created (in a stack shared by the file's tests): the steps run after
 * each test, so the other tests see the lists as they were.
 */
export function cleanUpAfterEach(): Array<() => Promise<void>> {
  const steps: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of steps.splice(0)) await step();
  });
  return steps;
}

/** What consolePage opened for the file's tests. */
export interface OpenedConsole {
  stack: ConsoleStack;
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors of `page`. */
  errors: string[];
}

export interface ConsolePageOptions {
  /** Where the page signs in, e.g. `/console/workflows`. */
  path: string;
  /** Default ADMIN_KEY. */
  key?: string;
  /** More of the app's environment (see startConsoleStack). */
  env?: Record<string, string>;
  width?: number;
  /** Runs once the stack is up, before the page opens (script the model, start another server). */
  prepare?: (stack: ConsoleStack) => Promise<void> | void;
}

/**
 * The set-up block most browser specs share, registered as the file's hooks: beforeAll starts the console stack
 * (within CONSOLE_STACK_TIMEOUT_MS), opens one page, hands it to `opened` and signs in; afterAll closes the page and
 * the stack. Returns the file's clean-up steps (see cleanUpAfterEach).
 */
export function consolePage(
  options: ConsolePageOptions,
  opened: (console: OpenedConsole) => void,
): Array<() => Promise<void>> {
  let stack: ConsoleStack | undefined;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    stack = await startConsoleStack(options.env);
    await options.prepare?.(stack);
    const page = await stack.newPage(options.width);
    context = page.context;
    opened({ stack, ...page });
    await signIn(page.page, `${stack.url}${options.path}`, options.key ?? ADMIN_KEY);
  }, CONSOLE_STACK_TIMEOUT_MS);
  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);
  return cleanUpAfterEach();
}
