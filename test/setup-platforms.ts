/**
 * Registers the chat platforms (adapters/index.ts) before each test file, as the CLI does before it
 * reads config.yaml, so parsed configs carry every platform's own section.
 */
import "../adapters/index.js";
