// Package uitest tests the web panel end to end: the real ckptd on a temp
// workspace, its security checks over HTTP, and the page in a headless
// Chromium (chromedp) while a scripted agent runs the real ckpt. It holds
// only tests.
package uitest
