import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { EventFollower, touchedQueries } from '../api/live';

/** While signed in: the event stream invalidates the queries each event touches (shown
 *  ones are fetched again; the others when next shown). */
export function LiveUpdates() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const follower = new EventFollower();
    follower.listen((events) => {
      const touched = events.map((event) => touchedQueries(event.type));
      void queryClient.invalidateQueries({
        predicate: (query) => {
          const id = (query.queryKey[0] as { _id?: string } | undefined)?._id ?? '';
          return touched.some((pattern) => pattern.test(id));
        },
      });
    });
    follower.start();
    return () => follower.stop();
  }, [queryClient]);
  return null;
}
