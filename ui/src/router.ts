import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from './lib/routes';

export { hrefProfile, hrefTraffic, parseRoute, type Route } from './lib/routes';

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
