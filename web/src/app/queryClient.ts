import { QueryClient } from '@tanstack/react-query';

import { ApiError } from '../api/errors';

/** Server state: retried only for what may pass by itself (network, 502-504), never 4xx. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        retry: (count, error) =>
          count < 2 && error instanceof ApiError && [0, 502, 503, 504].includes(error.status),
      },
      mutations: { retry: false },
    },
  });
}
