package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/store"
)

// httpError is an error with its own status code: a matter of HTTP (a
// wrong method), not one of fault's kinds, which api.StatusOf maps.
type httpError struct {
	code int
	err  error
}

func (e httpError) Error() string { return e.err.Error() }
func (e httpError) Unwrap() error { return e.err }

// statusOf maps an error to its status: the code of an httpError, else
// the wire's (api.StatusOf).
func statusOf(err error) int {
	var he httpError
	if errors.As(err, &he) {
		return he.code
	}
	return api.StatusOf(err)
}

// Handler is the socket API, with the version header on every answer.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/health", s.only(http.MethodGet, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Health())
	}))
	mux.HandleFunc("/v1/workspaces", s.handleWorkspaces)
	mux.HandleFunc("/v1/events", s.only(http.MethodGet, s.handleEvents))
	for path, rt := range engineRoutes {
		mux.HandleFunc(path, s.only(rt.method, s.engineHandler(rt)))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, fault.Mark(fmt.Errorf("no route %s %s", r.Method, r.URL.Path), fault.NotFound))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(api.VersionHeader, api.Version)
		if !s.opts.Logger.Enabled(r.Context(), slog.LevelDebug) {
			mux.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		mux.ServeHTTP(rec, r)
		s.opts.Logger.Debug(fmt.Sprintf("%s %s?%s: %d in %s", r.Method, r.URL.Path, r.URL.RawQuery, rec.code, time.Since(start).Round(time.Microsecond)))
	})
}

// statusRecorder remembers the status of an answer, for the debug log.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach Flush (event streams).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// only answers 405 to any method but method.
func (s *Server) only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			s.fail(w, r, httpError{http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use %s", r.Method, r.URL.Path, method)})
			return
		}
		h(w, r)
	}
}

func (s *Server) handleAddWorkspaces(w http.ResponseWriter, r *http.Request) {
	var req api.AddWorkspacesRequest
	if err := decode(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	// Opening imports the workspace the first time: it finishes even if the
	// client gives up waiting.
	res, err := s.Open(context.WithoutCancel(r.Context()), req.Workspaces)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// engineRoute is one route onto a drift.Engine method.
type engineRoute struct {
	method string
	// mutates: the call changes state, so it runs to the end even if the
	// client goes away.
	mutates bool
	call    func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error)
}

func (s *Server) engineHandler(rt engineRoute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sp, release, err := s.acquire(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		defer release()
		if r.URL.Path == "/v1/status" {
			if st, ok := s.importingStatus(r.Context(), sp); ok {
				writeJSON(w, http.StatusOK, st)
				return
			}
		} else if err := s.notOpen(r, sp); err != nil {
			s.fail(w, r, err)
			return
		} else if err := waitForImport(r.Context(), sp); err != nil {
			s.fail(w, r, err)
			return
		}
		ctx := r.Context()
		if rt.mutates {
			ctx = context.WithoutCancel(ctx)
		}
		v, err := rt.call(ctx, sp.served.Engine, r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

// answer turns a typed result into the route's.
func answer[T any](v T, err error) (any, error) { return v, err }

// body decodes the request's JSON body into a T.
func body[T any](r *http.Request) (T, error) {
	var v T
	return v, decode(r, &v)
}

var engineRoutes = map[string]engineRoute{
	"/v1/status": {http.MethodGet, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		return answer(e.Status(ctx))
	}},
	"/v1/checkpoint": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		b, err := body[api.CheckpointBody](r)
		if err != nil {
			return nil, err
		}
		return answer(e.Checkpoint(ctx, b.Message))
	}},
	"/v1/rescan": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		return struct{}{}, e.Rescan(ctx)
	}},
	"/v1/log": {http.MethodGet, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		n := 0
		if q := r.URL.Query().Get("n"); q != "" {
			var err error
			if n, err = strconv.Atoi(q); err != nil || n < 0 {
				return nil, drift.Invalid(fmt.Errorf("n=%q is not a count", q))
			}
		}
		return answer(e.Log(ctx, n))
	}},
	"/v1/show": {http.MethodGet, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		return answer(e.Show(ctx, r.URL.Query().Get("id")))
	}},
	"/v1/diff": {http.MethodPost, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.DiffRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.Diff(ctx, req))
	}},
	"/v1/run/diff": {http.MethodPost, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.RunRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.RunDiff(ctx, req))
	}},
	"/v1/run/start": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		b, err := body[api.RunBody](r)
		if err != nil {
			return nil, err
		}
		return answer(e.RunStart(ctx, b.Session, b.Run))
	}},
	"/v1/run/end": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		b, err := body[api.RunBody](r)
		if err != nil {
			return nil, err
		}
		return answer(e.RunEndAsOf(ctx, b.Session, b.Run, b.AsOf))
	}},
	"/v1/tool/start": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.ToolRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.ToolStart(ctx, req))
	}},
	"/v1/tool/end": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.ToolRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.ToolEnd(ctx, req))
	}},
	"/v1/restore": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.RestoreRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.Restore(ctx, req))
	}},
	"/v1/undo": {http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.RestoreRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.Undo(ctx, req))
	}},
}

// maxBody bounds a request body.
const maxBody = 1 << 20

// decode reads the request's JSON body into v; an empty body leaves v as it
// is. A malformed body is bad input.
func decode(r *http.Request, v any) error {
	err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody)).Decode(v)
	if err != nil && !errors.Is(err, io.EOF) {
		return drift.Invalid(fmt.Errorf("malformed request body: %w", err))
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// fail answers {"error": "..."} with err's status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := statusOf(err)
	if code >= 500 && !errors.Is(err, api.ErrNotOpen) { // a hook told to come back later is no failure
		s.opts.Logger.Warn(fmt.Sprintf("%s %s?%s: %v", r.Method, r.URL.Path, r.URL.RawQuery, err))
	}
	msg := err.Error()
	if code == api.StatusFull {
		msg = store.FullMessage(err) // the one line, not the layers above it
	}
	body := api.ErrorBody{Error: msg}
	notOpenBody(err, &body)
	writeJSON(w, code, body)
}
