import { useEffect, useState } from 'react';

export type Route =
  { page: 'agents' } | { page: 'goals' } | { page: 'goal'; goalId: string } | { page: 'keys' } | { page: 'operations' };

/** `#/agents`, `#/goals`, `#/goals/<id>`, `#/keys`, `#/operations`; anything else is the goals page. */
export function parseRoute(hash: string): Route {
  const [, first, second] = hash.replace(/^#/, '').split('/');
  if (first === 'agents') return { page: 'agents' };
  if (first === 'keys') return { page: 'keys' };
  if (first === 'operations') return { page: 'operations' };
  if (first === 'goals' && second) return { page: 'goal', goalId: decodeURIComponent(second) };
  return { page: 'goals' };
}

export function goalHref(goalId: string): string {
  return `#/goals/${encodeURIComponent(goalId)}`;
}

/** The current route, following the address bar's hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
