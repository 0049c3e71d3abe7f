/** The GitHub Action's entry (`action.yml`): the pull-request check with the real process. */
import { processIo } from '../cli/program.js';
import { runPullRequestCheck } from './pull-request-check.js';

process.exitCode = await runPullRequestCheck(processIo());
