export * from './gateway/index.js';
export { type BoundedLine, boundedLines, idInHead, MAX_MESSAGE_BYTES } from './line-reader.js';
export * from './server/index.js';
