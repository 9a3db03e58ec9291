import { Type } from '@sinclair/typebox';
import { renderText } from '../references';
import type { NodeHandler } from './node-handler';
import { outputObject } from './output-shape';
import { referenceText } from './reference-text';

const TemplateNodeData = Type.Object(
  { label: Type.Optional(Type.String()), template: referenceText },
  { additionalProperties: false },
);

/** Renders `data.template` with references resolved. */
export const templateNode: NodeHandler<typeof TemplateNodeData> = {
  data: TemplateNodeData,
  output: () => outputObject({ output: Type.String({ description: 'The rendered template' }) }),
  pure: true,
  run: ({ data, scope }) => Promise.resolve({ output: renderText(data.template, scope) }),
};
