import { applyMemorySettings } from './lifecycle/memory-settings.ts';

/** `npm start`: the API (and, unless RUN_WORKER=false, the job worker) in one process. */

// Before the service's modules load: this may re-execute the process with its memory settings.
applyMemorySettings();
await import('./server-process.ts');
