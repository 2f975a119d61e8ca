package runtime

import "time"

// A server that offers no stream for server-initiated messages answers the
// GET that would open it with 405 Method Not Allowed, whatever the session:
// it is a property of the endpoint. noGetStream remembers, per endpoint
// key (see endpointKey), when a server last answered so, and the legacy
// sessions that connect to the endpoint within noGetStreamTTL of that do
// not send the GET: a request the server would refuse, which costs it work
// alongside the session's first requests and, for a server that gives
// session ids, a round trip before them. After noGetStreamTTL a session
// asks again, so that a server that starts offering the stream is heard.
var noGetStream = newEndpointMemory[time.Time](maxNoGetStream) // endpoint key → when the server last answered 405

// noGetStreamTTL is how long a 405 to the GET is believed.
const noGetStreamTTL = 5 * time.Minute

// maxNoGetStream bounds the endpoints noGetStream and getStreamOffered
// remember; an endpoint forgotten to make room sends its next GET as if new.
const maxNoGetStream = 1024

// offersNoGetStream reports whether the endpoint key answered the GET with
// 405 within noGetStreamTTL.
func offersNoGetStream(key string) bool {
	at, ok := noGetStream.get(key)
	return ok && time.Since(at) < noGetStreamTTL
}

// getStreamOffered remembers, per endpoint key, that its server answered a
// GET with a stream of server messages, bounded as noGetStream is. Later
// GETs to such an endpoint go over the stream client, whose small buffers
// suit a connection held open by a stream that waits most of its life
// (see sharedStreamClient). A GET to an endpoint whose answer the process
// does not know yet goes over the pooled connections of requests instead:
// sent once the answer before it has been read to its end, it finds that
// connection idle, where the stream client would dial one of its own (and
// set itself up, in a fresh process) while the caller is still busy with
// that answer; and a server that offers no stream answers it 405, which
// noGetStream then remembers.
var getStreamOffered = newEndpointMemory[struct{}](maxNoGetStream)

// offersGetStream reports whether the endpoint key answered a GET with a
// stream before.
func offersGetStream(key string) bool {
	_, ok := getStreamOffered.get(key)
	return ok
}
