import { isExpandTool } from '../formats/index.js';
import type { Content, ContentBlock, ToolResult } from '../text/index.js';

/** A message of the conversation as the session records it. */
export type MessageData =
  | { role: 'user' | 'assistant' | 'system'; content: string | ContentBlock[]; [key: string]: unknown }
  | {
      role: 'tool';
      toolCallId: string;
      toolName?: string;
      content: Content;
      isError?: boolean;
      [key: string]: unknown;
    };

/** How an event changes the surface: added at the end, or put in place of surface nodes [start, end). */
export type SurfaceOp = { type: 'append' } | { type: 'replace'; start: number; end: number };

/** One line of the session log. `seq` is contiguous from 0. */
export interface SessionEvent {
  seq: number;
  op: SurfaceOp;
  /** For a replacement: the seqs of the events it shadows (provenance). */
  sources?: number[];
  data: MessageData;
}

/** A node of the surface: what the model sees now. */
export interface SurfaceNode {
  seq: number;
  data: MessageData;
}

export type ToolData = Extract<MessageData, { role: 'tool' }>;

/**
 * True for the data of a tool result event.
 *
 * @example
 * session.surface().filter((n) => isToolData(n.data)).length; // tool results now visible
 */
export function isToolData(data: MessageData): data is ToolData {
  return data.role === 'tool';
}

/**
 * A tool result event as the engine sees it.
 *
 * @example
 * toolResultOf({ role: 'tool', toolCallId: 'toolu_01', toolName: 'Bash', content: log }, 3);
 * // { id: 'toolu_01', tool: 'Bash', content: log, position: 3 }
 */
export function toolResultOf(data: ToolData, position: number): ToolResult {
  const tool = data.toolName ?? '';
  return {
    id: data.toolCallId,
    tool,
    content: data.content,
    position,
    ...(data.isError ? { isError: true } : {}),
    ...(isExpandTool(tool) ? { isExpandOutput: true } : {}),
  };
}
