// @ts-nocheck
// The service worker (served at /sw.js so that its scope is the whole site): a push
// message from the server ({title, body, url, tag}, JSON) is shown as a notification, and
// a click on it opens the game (a tab already on it is brought forward).

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(message.title || "chuhan", {
      body: message.body || "",
      tag: message.tag,
      data: { url: message.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  // (only a page of this site is opened)
  const asked = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  const url = asked.origin === self.location.origin ? asked.href : self.location.origin + "/";
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if (client.url === url && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(url);
    })(),
  );
});
