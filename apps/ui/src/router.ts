import { useEffect, useState } from 'preact/hooks';

/** The app's pages; the gateway answers each path with index.html (apps/gateway/src/ui/ui.controller.ts). */
export type Route = 'chat' | 'approvals' | 'sessions' | 'channels' | 'usage' | 'memory' | 'jobs' | 'agents' | 'settings';
export const ROUTE_PATHS: Record<Route, string> = {
  chat: '/',
  approvals: '/approvals',
  sessions: '/sessions',
  channels: '/channels',
  usage: '/usage',
  memory: '/memory',
  jobs: '/jobs',
  agents: '/agents',
  settings: '/settings',
};

function routeOf(path: string): Route {
  const found = (Object.keys(ROUTE_PATHS) as Route[]).find((r) => ROUTE_PATHS[r] === path);
  return found ?? 'chat';
}

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((l) => l()));

/** Opens a page; `tail` (`?open=…`, `#config-agents`) tells it what to show first. */
export function navigate(route: Route, tail = ''): void {
  const target = ROUTE_PATHS[route] + tail;
  if (location.pathname + location.search + location.hash !== target) history.pushState(null, '', target);
  listeners.forEach((l) => l());
}

/** A link within the app: the page changes without a reload, as the header's links do. */
export const inAppLink = (route: Route, tail = '') => ({
  href: ROUTE_PATHS[route] + tail,
  onClick: (e: MouseEvent) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return; // a new tab or window: the browser's
    e.preventDefault();
    navigate(route, tail);
  },
});

export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => routeOf(location.pathname));
  useEffect(() => {
    const listener = () => setRoute(routeOf(location.pathname));
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return route;
}
