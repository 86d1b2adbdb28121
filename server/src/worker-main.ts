import { applyMemorySettings } from './lifecycle/memory-settings.ts';

/** `npm run worker`: job processing without HTTP (worker-process.ts). */

// Before the service's modules load: this may re-execute the process with its memory settings.
applyMemorySettings();
await import('./worker-process.ts');
