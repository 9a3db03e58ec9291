import TurndownService from 'turndown';

const NOISE: TurndownService.Filter = [
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'canvas',
];

const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
service.remove(NOISE);

/** Readable Markdown from an HTML page, without scripts, styles and other non-content elements. */
export const htmlToMarkdown = (html: string): string =>
  service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
