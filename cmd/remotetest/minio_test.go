package remotetest

import "github.com/minio/minio-go/v7"

func listOpts(prefix string) minio.ListObjectsOptions {
	return minio.ListObjectsOptions{Prefix: prefix, Recursive: true}
}
