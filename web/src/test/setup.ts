import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// findBy*/waitFor wait up to 10 s: lazily loaded screens are slow on a loaded 2-core
// machine (the test command runs these beside the browser tests).
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => cleanup());
