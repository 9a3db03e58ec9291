import type { BuiltinTool } from './builtin-tool';
import { calculator } from './calculator';
import { currentTime } from './current-time';
import { databaseQuery } from './database-query';
import { fileRead } from './file-read';
import { httpRequest } from './http-request';
import { webFetch } from './web-fetch';

/** Every builtin tool; adding one is a new file in this folder plus a line here. */
export const BUILTIN_TOOLS: ReadonlyArray<BuiltinTool<never>> = [
  httpRequest,
  webFetch,
  fileRead,
  currentTime,
  calculator,
  databaseQuery,
];
