#!/usr/bin/env node
/** The `edgesync` binary: wires the process to the in-process CLI and exits with its code. */
import { processIo, runCli } from './cli/program.js';

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
