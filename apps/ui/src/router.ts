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

export function navigate(route: Route): void {
  if (location.pathname !== ROUTE_PATHS[route]) history.pushState(null, '', ROUTE_PATHS[route]);
  listeners.forEach((l) => l());
}

export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => routeOf(location.pathname));
  useEffect(() => {
    const listener = () => setRoute(routeOf(location.pathname));
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return route;
}
