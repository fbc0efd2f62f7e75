// Command go-agent is an IoA agent written in Go with nothing but the NATS client (github.com/nats-io/nats.go) and
// the standard library: it registers its card, heartbeats well within the TTL, serves the tasks addressed to it
// (acknowledges at once, reports progress, then the result), stops work on a canceled task, and shuts down cleanly
// on SIGINT/SIGTERM. It follows the public contract (docs/contract.md, docs/contract/schemas/) and passes the
// conformance kit (`npm run conformance -- --nats URL --agent unit-converter`).
//
// Build with Debian's packages, no module download:
//
//	GOPATH=/usr/share/gocode GO111MODULE=off go build -o go-agent ./examples/go-agent
//
// Settings (environment): NATS_URL (default nats://127.0.0.1:4222), AGENT_NAME (default unit-converter),
// AGENT_OWNER, WORK_MS (how long a task takes, default 500; progress is reported every second of it), and
// AGENT_CREDS: the creds file of the agent's own NATS identity, which a broker with authentication requires
// (docs/contract.md, "Joining as an external agent"). With it the agent connects as its own user, reads its replies
// under _INBOX.<agent id>, and acts on its own subjects (ioa.agent.<id>.register.v1, .heartbeat.v1,
// .task.report.v1); AGENT_OWNER must then be the identity's account.
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

// Subjects of the contract (libs/contracts). WIRE CONSTANTS.
const (
	subjectRegister  = "ioa.registry.agent.register.v1"
	subjectHeartbeat = "ioa.registry.agent.heartbeat.v1"
	subjectReport    = "ioa.scheduler.task.report.v1"
	taskSubject      = "ioa.agent.%s.task.v1"
	canceledSubject  = "ioa.agent.%s.task-canceled.v1"
	// An agent with an identity acts on its own subjects: the subject, not a field, says who acts.
	ownRegister    = "ioa.agent.%s.register.v1"
	ownHeartbeat   = "ioa.agent.%s.heartbeat.v1"
	ownReport      = "ioa.agent.%s.task.report.v1"
	requestTimeout = 5 * time.Second
	shutdownGrace  = 10 * time.Second
)

// subjects are where the agent sends its registration, heartbeats and reports.
type subjects struct{ register, heartbeat, report string }

// sharedSubjects are the services' subjects, which only a broker without authentication lets an agent use.
var sharedSubjects = subjects{subjectRegister, subjectHeartbeat, subjectReport}

func ownSubjects(agentID string) subjects {
	return subjects{fmt.Sprintf(ownRegister, agentID), fmt.Sprintf(ownHeartbeat, agentID), fmt.Sprintf(ownReport, agentID)}
}

// agentIDOfCreds reads the agent id from a creds file: the `name` claim of its user JWT.
func agentIDOfCreds(path string) (string, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	match := regexp.MustCompile(`-----BEGIN NATS USER JWT-----\s*([A-Za-z0-9_.=-]+)`).FindSubmatch(text)
	if match == nil {
		return "", fmt.Errorf("%s holds no user JWT", path)
	}
	parts := strings.Split(string(match[1]), ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("%s: the user JWT is not three dot-separated parts", path)
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return "", fmt.Errorf("%s: the user JWT's claims are not base64url: %w", path, err)
	}
	var claims struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.Name == "" {
		return "", fmt.Errorf("%s: the user JWT names no agent", path)
	}
	return claims.Name, nil
}

// errorBody is the error half of every reply envelope: {"ok": false, "error": {...}}.
type errorBody struct {
	Code      string      `json:"code"`
	Message   string      `json:"message"`
	Details   interface{} `json:"details,omitempty"`
	Retryable bool        `json:"retryable"`
}

func (e *errorBody) Error() string { return e.Code + ": " + e.Message }

type envelope struct {
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"data,omitempty"`
	Error *errorBody      `json:"error,omitempty"`
}

type skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples"`
}

type card struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Owner       string            `json:"owner"`
	Skills      []skill           `json:"skills"`
	Endpoint    map[string]string `json:"endpoint"`
	Version     string            `json:"version"`
	Metadata    map[string]string `json:"metadata"`
}

type brief struct {
	Abstract           string `json:"abstract"`
	Inputs             string `json:"inputs"`
	Description        string `json:"description"`
	CompletionCriteria string `json:"completionCriteria"`
}

type assignment struct {
	TaskID   string `json:"taskId"`
	GoalID   string `json:"goalId"`
	GroupID  string `json:"groupId"`
	AgentID  string `json:"agentId"`
	Brief    *brief `json:"brief"`
	Deadline string `json:"deadline"`
	Depth    *int   `json:"depth"`
	MaxDepth *int   `json:"maxDepth"`
	Attempt  *int   `json:"attempt"`
}

type violation struct {
	Property    string   `json:"property"`
	Constraints []string `json:"constraints"`
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// violations checks an assignment against the TaskAssignmentV1Request schema (docs/contract/schemas/).
func (a *assignment) violations() []violation {
	var found []violation
	add := func(property, constraint string) {
		found = append(found, violation{Property: property, Constraints: []string{constraint}})
	}
	for property, value := range map[string]string{"taskId": a.TaskID, "goalId": a.GoalID, "groupId": a.GroupID, "agentId": a.AgentID} {
		if !uuidPattern.MatchString(value) {
			add(property, property+" must be a UUID")
		}
	}
	if a.Brief == nil {
		add("brief", "brief must be an object")
	} else {
		if strings.TrimSpace(a.Brief.Description) == "" {
			add("brief.description", "description must not be empty")
		}
		if strings.TrimSpace(a.Brief.Abstract) == "" {
			add("brief.abstract", "abstract must not be empty")
		}
	}
	if _, err := time.Parse(time.RFC3339, a.Deadline); err != nil {
		add("deadline", "deadline must be an ISO 8601 date string")
	}
	if a.Depth == nil || a.MaxDepth == nil || a.Attempt == nil {
		add("depth", "depth, maxDepth and attempt must be integers")
	}
	return found
}

type agent struct {
	nc       *nats.Conn
	card     card
	workFor  time.Duration
	subjects subjects

	mu       sync.Mutex
	id       string
	ttl      time.Duration
	subs     []*nats.Subscription
	running  map[string]chan struct{} // task id → closed when the task is canceled
	seen     map[string]bool          // acknowledged task ids: a redelivery is acknowledged, not run twice
	stopping bool
	work     sync.WaitGroup
}

// request sends one request and unwraps the reply envelope; nobody serving the subject is UNAVAILABLE, no answer
// in time TIMEOUT, as the platform's own clients say.
func (a *agent) request(subject string, body interface{}, into interface{}) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	msg, err := a.nc.Request(subject, payload, requestTimeout)
	if errors.Is(err, nats.ErrNoResponders) {
		return &errorBody{Code: "UNAVAILABLE", Message: "nobody serves " + subject, Retryable: true}
	}
	if errors.Is(err, nats.ErrTimeout) {
		return &errorBody{Code: "TIMEOUT", Message: "no answer on " + subject, Retryable: true}
	}
	if err != nil {
		return &errorBody{Code: "UNAVAILABLE", Message: err.Error(), Retryable: true}
	}
	var reply envelope
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return fmt.Errorf("%s answered something that is not JSON: %w", subject, err)
	}
	if !reply.OK {
		if reply.Error == nil {
			return fmt.Errorf("%s answered ok: false without an error", subject)
		}
		return reply.Error
	}
	if into != nil {
		return json.Unmarshal(reply.Data, into)
	}
	return nil
}

func codeOf(err error) string {
	var body *errorBody
	if errors.As(err, &body) {
		return body.Code
	}
	return ""
}

func retryable(err error) bool {
	var body *errorBody
	return errors.As(err, &body) && body.Retryable
}

// register registers the card (again), retrying while the registry is unreachable, and moves the task
// subscriptions to the id the registry answers with.
func (a *agent) register() error {
	wait := 250 * time.Millisecond
	for {
		var reply struct {
			Agent struct {
				ID string `json:"id"`
			} `json:"agent"`
			HeartbeatTTLSeconds int `json:"heartbeatTtlSeconds"`
		}
		err := a.request(a.subjects.register, a.card, &reply)
		if err == nil {
			return a.adopt(reply.Agent.ID, time.Duration(reply.HeartbeatTTLSeconds)*time.Second)
		}
		if !retryable(err) {
			return fmt.Errorf("registration refused: %w", err)
		}
		log.Printf("registration not answered (%v); retrying in %v", err, wait)
		time.Sleep(wait)
		if wait *= 2; wait > 5*time.Second {
			wait = 5 * time.Second
		}
	}
}

func (a *agent) adopt(id string, ttl time.Duration) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ttl = ttl
	if id == a.id {
		return nil
	}
	for _, sub := range a.subs {
		_ = sub.Unsubscribe()
	}
	a.id = id
	tasks, err := a.nc.Subscribe(fmt.Sprintf(taskSubject, id), a.onTask)
	if err != nil {
		return err
	}
	canceled, err := a.nc.Subscribe(fmt.Sprintf(canceledSubject, id), a.onCanceled)
	if err != nil {
		return err
	}
	a.subs = []*nats.Subscription{tasks, canceled}
	log.Printf("registered %s as %s (heartbeat TTL %v)", a.card.Name, id, ttl)
	return a.nc.Flush()
}

// heartbeat says the agent is alive; NOT_FOUND means the registry forgot it, and the contract says: register again.
func (a *agent) heartbeat() {
	a.mu.Lock()
	id := a.id
	a.mu.Unlock()
	err := a.request(a.subjects.heartbeat, map[string]string{"id": id}, nil)
	if codeOf(err) == "NOT_FOUND" {
		log.Printf("the registry no longer knows this agent; registering again")
		if err := a.register(); err != nil {
			log.Printf("%v", err)
		}
	} else if err != nil {
		log.Printf("heartbeat failed: %v", err)
	}
}

func (a *agent) heartbeats(stop <-chan struct{}) {
	for {
		a.mu.Lock()
		every := a.ttl / 3
		a.mu.Unlock()
		select {
		case <-stop:
			return
		case <-time.After(every):
			a.heartbeat()
		}
	}
}

func respond(msg *nats.Msg, reply envelope) {
	payload, _ := json.Marshal(reply)
	_ = msg.Respond(payload)
}

func (a *agent) onTask(msg *nats.Msg) {
	// Not JSON at all is MALFORMED_PAYLOAD; JSON of the wrong shape (a string where an object belongs) is
	// VALIDATION_FAILED, as the platform's own services answer.
	if !json.Valid(msg.Data) {
		respond(msg, envelope{Error: &errorBody{Code: "MALFORMED_PAYLOAD", Message: "the message body is not JSON"}})
		return
	}
	var task assignment
	found := []violation{}
	if err := json.Unmarshal(msg.Data, &task); err != nil {
		var typeError *json.UnmarshalTypeError
		if errors.As(err, &typeError) {
			found = append(found, violation{Property: typeError.Field, Constraints: []string{typeError.Field + " must not be a JSON " + typeError.Value}})
		} else {
			found = append(found, violation{Property: "(body)", Constraints: []string{"the message body must be a JSON object"}})
		}
	} else {
		found = task.violations()
	}
	if len(found) > 0 {
		respond(msg, envelope{Error: &errorBody{
			Code:    "VALIDATION_FAILED",
			Message: fmt.Sprintf("Invalid payload: %s: %s", found[0].Property, found[0].Constraints[0]),
			Details: map[string]interface{}{"violations": found},
		}})
		return
	}
	a.mu.Lock()
	if a.stopping {
		a.mu.Unlock()
		respond(msg, envelope{OK: true, Data: json.RawMessage(`{"accepted":false,"reason":"the agent is shutting down"}`)})
		return
	}
	again := a.seen[task.TaskID]
	a.seen[task.TaskID] = true
	canceled := make(chan struct{})
	if !again {
		a.running[task.TaskID] = canceled
		a.work.Add(1)
	}
	a.mu.Unlock()
	respond(msg, envelope{OK: true, Data: json.RawMessage(`{"accepted":true}`)})
	if !again {
		go a.run(task, canceled)
	}
}

func (a *agent) onCanceled(msg *nats.Msg) {
	var event struct {
		TaskID string `json:"taskId"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(msg.Data, &event); err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen[event.TaskID] = true
	if canceled, ok := a.running[event.TaskID]; ok {
		close(canceled)
		delete(a.running, event.TaskID)
		log.Printf("task %s canceled: %s", event.TaskID, event.Reason)
	}
}

// report sends one report; INVALID_STATE or NOT_FOUND mean the platform has closed the task: stop working on it.
func (a *agent) report(taskID, state, content string) (stop bool) {
	a.mu.Lock()
	id := a.id
	a.mu.Unlock()
	body := map[string]string{"taskId": taskID, "agentId": id, "state": state, "content": content}
	for attempt := 1; ; attempt++ {
		err := a.request(a.subjects.report, body, nil)
		switch {
		case err == nil:
			return false
		case codeOf(err) == "INVALID_STATE" || codeOf(err) == "NOT_FOUND":
			log.Printf("task %s closed by the platform: %v", taskID, err)
			return true
		case retryable(err) && attempt < 3:
			time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
		default:
			log.Printf("report on task %s failed: %v", taskID, err)
			return false
		}
	}
}

var quantityPattern = regexp.MustCompile(`(?i)(-?\d+(?:\.\d+)?)\s*(kilometres|kilometers|km|miles|mi|celsius|°c|fahrenheit|°f|kilograms|kg|pounds|lb)\b`)

// convert does the agent's actual job: every quantity in the text, in the other unit system.
func convert(text string) string {
	var lines []string
	for _, match := range quantityPattern.FindAllStringSubmatch(text, -1) {
		value, _ := strconv.ParseFloat(match[1], 64)
		round := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
		switch strings.ToLower(match[2]) {
		case "kilometres", "kilometers", "km":
			lines = append(lines, fmt.Sprintf("%s km = %s miles", match[1], round(value*0.621371)))
		case "miles", "mi":
			lines = append(lines, fmt.Sprintf("%s miles = %s km", match[1], round(value*1.609344)))
		case "celsius", "°c":
			lines = append(lines, fmt.Sprintf("%s °C = %s °F", match[1], round(value*9/5+32)))
		case "fahrenheit", "°f":
			lines = append(lines, fmt.Sprintf("%s °F = %s °C", match[1], round((value-32)*5/9)))
		case "kilograms", "kg":
			lines = append(lines, fmt.Sprintf("%s kg = %s lb", match[1], round(value*2.204623)))
		case "pounds", "lb":
			lines = append(lines, fmt.Sprintf("%s lb = %s kg", match[1], round(value*0.453592)))
		}
	}
	if len(lines) == 0 {
		return "No quantity with a unit I know (km, miles, °C, °F, kg, lb) in: " + text
	}
	return strings.Join(lines, "\n")
}

func (a *agent) run(task assignment, canceled <-chan struct{}) {
	defer a.work.Done()
	defer func() {
		a.mu.Lock()
		delete(a.running, task.TaskID)
		a.mu.Unlock()
	}()
	if a.report(task.TaskID, "working", "Converting: "+task.Brief.Abstract) {
		return
	}
	deadline := time.After(a.workFor)
	progress := time.NewTicker(time.Second)
	defer progress.Stop()
	for done := false; !done; {
		select {
		case <-canceled:
			return // the platform closes a canceled task; nothing more is reported on it
		case <-progress.C:
			if a.report(task.TaskID, "working", "Still converting…") {
				return
			}
		case <-deadline:
			done = true
		}
	}
	a.report(task.TaskID, "completed", convert(task.Brief.Description+"\n"+task.Brief.Inputs))
}

// shutdown stops taking tasks, lets running ones finish within the grace period, reports the others failed, and
// closes the connection. The card stays: the agent goes offline when its TTL passes and keeps its id for next time.
func (a *agent) shutdown() {
	a.mu.Lock()
	a.stopping = true
	a.mu.Unlock()
	finished := make(chan struct{})
	go func() { a.work.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(shutdownGrace):
		a.mu.Lock()
		var unfinished []string
		for taskID, canceled := range a.running {
			close(canceled)
			unfinished = append(unfinished, taskID)
		}
		a.running = map[string]chan struct{}{}
		a.mu.Unlock()
		for _, taskID := range unfinished {
			a.report(taskID, "failed", "The agent shut down before finishing the task.")
		}
	}
	_ = a.nc.Drain()
	log.Printf("stopped")
}

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	env := func(key, fallback string) string {
		if value := os.Getenv(key); value != "" {
			return value
		}
		return fallback
	}
	workMs, err := strconv.Atoi(env("WORK_MS", "500"))
	if err != nil || workMs < 0 {
		log.Fatalf("WORK_MS must be a number of milliseconds, not %q", os.Getenv("WORK_MS"))
	}
	url := env("NATS_URL", nats.DefaultURL)
	options := []nats.Option{
		nats.Name("ioa-go-agent"),
		nats.MaxReconnects(-1), // an agent outlives broker restarts and network cuts
		nats.ReconnectWait(time.Second),
		nats.RetryOnFailedConnect(true),
	}
	on := sharedSubjects
	if creds := os.Getenv("AGENT_CREDS"); creds != "" {
		agentID, err := agentIDOfCreds(creds)
		if err != nil {
			log.Fatalf("AGENT_CREDS: %v", err)
		}
		// Its own user, its own inbox: the broker lets it read replies only under _INBOX.<agent id>.
		options = append(options, nats.UserCredentials(creds), nats.CustomInboxPrefix("_INBOX."+agentID))
		on = ownSubjects(agentID)
	}
	nc, err := nats.Connect(url, options...)
	if err != nil {
		log.Fatalf("cannot connect to %s: %v", url, err)
	}
	a := &agent{
		nc:       nc,
		subjects: on,
		workFor:  time.Duration(workMs) * time.Millisecond,
		running:  map[string]chan struct{}{},
		seen:     map[string]bool{},
		card: card{
			Name:        env("AGENT_NAME", "unit-converter"),
			Description: "Converts measurements between metric and imperial units: kilometres and miles, Celsius and Fahrenheit, kilograms and pounds.",
			Owner:       env("AGENT_OWNER", "examples@ioa.dev"),
			Skills: []skill{{
				ID:          "convert-units",
				Name:        "Convert units",
				Description: "Converts distances (kilometres, miles), temperatures (Celsius, Fahrenheit) and weights (kilograms, pounds).",
				Tags:        []string{"units", "conversion", "metric", "imperial"},
				Examples:    []string{"Convert 42 kilometres to miles", "What is 30 °C in Fahrenheit?"},
			}},
			Endpoint: map[string]string{"kind": "nats"},
			Version:  "1.0.0",
			Metadata: map[string]string{"language": "go"},
		},
	}
	// After a reconnect the agent may have gone offline meanwhile: say it is alive at once.
	nc.SetReconnectHandler(func(*nats.Conn) { go a.heartbeat() })
	if err := a.register(); err != nil {
		log.Fatalf("%v", err)
	}
	stop := make(chan struct{})
	go a.heartbeats(stop)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	<-signals
	close(stop)
	a.shutdown()
}
