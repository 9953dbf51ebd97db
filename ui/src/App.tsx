import { useEffect, useState } from 'preact/hooks';
import { getToken, setToken, setUnauthorizedHandler } from './api/client';
import { live } from './api/live';
import { Login } from './components/Login';
import { useLiveMode } from './hooks';
import { ProfilePage } from './pages/Profile';
import { ProfilesPage } from './pages/Profiles';
import { TrafficPage } from './pages/Traffic';
import { useRoute } from './router';

export function App() {
  const [signedIn, setSignedIn] = useState(() => getToken() !== null);
  const [message, setMessage] = useState<string | undefined>(undefined);
  useEffect(() => {
    setUnauthorizedHandler((m) => {
      setToken(null);
      setMessage(m);
      setSignedIn(false);
    });
  }, []);
  useEffect(() => {
    if (!signedIn) return undefined;
    live.start();
    return () => live.stop();
  }, [signedIn]);
  if (!signedIn)
    return (
      <Login
        message={message}
        onDone={() => {
          setMessage(undefined);
          setSignedIn(true);
        }}
      />
    );
  return (
    <Shell
      onSignOut={() => {
        setToken(null);
        setMessage('Signed out.');
        setSignedIn(false);
      }}
    />
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const mode = useLiveMode();
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          tmkit
        </a>
        <nav>
          <a href="#/">Profiles</a>
        </nav>
        <span
          class={`live live-${mode}`}
          data-testid="live-mode"
          title={
            mode === 'events'
              ? 'live updates from /v1/events'
              : mode === 'polling'
                ? 'no event stream: refreshing every few seconds'
                : 'connecting to /v1/events'
          }
        >
          {mode === 'events' ? '● live' : mode === 'polling' ? '○ polling' : '… connecting'}
        </span>
        <button type="button" class="link" onClick={onSignOut} data-testid="sign-out">
          Sign out
        </button>
      </header>
      <main class="content">
        {route.page === 'profiles' ? (
          <ProfilesPage />
        ) : route.page === 'profile' ? (
          <ProfilePage key={route.name} name={route.name} />
        ) : route.page === 'traffic' ? (
          <TrafficPage key={route.name} name={route.name} />
        ) : (
          <p class="error">
            No page at {route.hash}. <a href="#/">Profiles</a>
          </p>
        )}
      </main>
    </>
  );
}
