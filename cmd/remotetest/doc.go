// Package remotetest holds the end-to-end tests of replication to
// S3-compatible storage: the real ckpt and ckptd against a real SeaweedFS
// (store/remote/weedtest) that TestMain starts once on 127.0.0.1 for the
// whole package, each test in a bucket of its own. Without CKPT_WEED the
// tests skip, saying why (scripts/test-deps.sh sets it).
package remotetest
