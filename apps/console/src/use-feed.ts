import { useEffect } from 'react';
import type { ConsoleApi } from './api';

/** Calls `onChange` (at most every 500 ms) while the network feed reports agents or goals coming and going. */
export function useFeed(api: ConsoleApi, onChange: () => void): void {
  useEffect(() => {
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      try {
        for await (const _event of api.feed(stop.signal)) {
          timer ??= setTimeout(() => {
            timer = undefined;
            onChange();
          }, 500);
        }
      } catch {
        // Stopped (the page closed) or the feed is refused: the page still works, without live updates.
      }
    })();
    return () => {
      stop.abort();
      clearTimeout(timer);
    };
  }, [api, onChange]);
}
