#!/usr/bin/env bash
# Several Attention Lab processes behind nginx, for a school server:
#
#   bash deploy/serve.sh --processes 2 --port 8080 [--base-path /attention-lab]
#
# starts N `streamlit run app.py` processes on internal ports (headless, 127.0.0.1, one shared
# server.cookieSecret), waits until each answers /_stcore/health, then starts nginx in front
# of them with websockets, sticky sessions (a cookie that nginx sets) and passive health
# checks. nginx runs as you, from a config generated from deploy/nginx.conf.template into the
# run directory (with its pid, logs and temp dirs): /etc/nginx and Debian's nginx service are
# never used. When nginx is missing it is installed with apt-get (as root, or through sudo).
# An app process that dies is started again; Ctrl-C or SIGTERM stops everything started here.
#
# docs/deploy.md ("Several processes behind nginx") explains the choices, the run directory,
# several machines (--upstream, --no-proxy) and the systemd unit (deploy/attention-lab.service).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: bash deploy/serve.sh [options]

  --processes N        app processes on this machine (default: the number of cores; 0 with
                       --upstream runs nginx alone in front of other machines)
  --port P             port nginx listens on (default 8080)
  --listen ADDR        address nginx listens on (default 0.0.0.0, every interface)
  --base-path /PATH    serve the app under a sub-path, e.g. /attention-lab (default: /)
  --base-url URL       the address phones use, for the Class page's link and QR code, e.g.
                       http://lab.school.example:8080/attention-lab (default: the address the
                       teacher's browser shows, or this machine's network address)
  --app-port Q         first internal port: the processes use Q, Q+1, ... (default P+1)
  --app-address ADDR   address the app processes listen on (default 127.0.0.1; use this
                       machine's LAN address with --no-proxy on a machine that serves
                       another machine's nginx)
  --upstream HOST:PORT an app process on another machine (repeat for each one)
  --no-proxy           start the app processes only, no nginx (see --app-address)
  --run-dir DIR        nginx config, pid files, logs, cookie secret (default
                       ${TMPDIR:-/tmp}/attention-lab-P, or attention-lab-apps-Q with --no-proxy)
  --cookie-secret-file FILE
                       server.cookieSecret shared by every process (default
                       RUN_DIR/cookie_secret, created once); copy it to every machine
  --start-timeout S    seconds to wait for every process to answer (default 300)
  --check-config       write the nginx config, check it with `nginx -t`, and exit
  -h, --help           this text

Environment: PYTHON (the Python that has streamlit; default python3), NGINX (the nginx binary).
EOF
}

die() { # die CODE MESSAGE: exit codes 2 = bad arguments, 3 = no nginx, 1 = anything else
  local code=$1
  shift
  echo "serve.sh: $*" >&2
  [ "$code" -eq 2 ] && echo "Run 'bash deploy/serve.sh --help' for the options." >&2
  exit "$code"
}
say() { echo "serve.sh: $*" >&2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPLATE="$ROOT/deploy/nginx.conf.template"

# ----------------------------------------------------------------------------- arguments
processes="" port=8080 listen=0.0.0.0 base_path="" app_port="" app_address=127.0.0.1
run_dir="" secret_file="" start_timeout=300 check_only=0 proxy=1 base_url=""
upstreams=()

need_value() { if [ "$#" -lt 2 ] || [ -z "$2" ]; then die 2 "$1 needs a value"; fi; }
is_int() { [[ $1 =~ ^[0-9]+$ ]] && [ "${#1}" -le 6 ]; }
check_port() {
  if ! { is_int "$2" && [ "$2" -ge 1 ] && [ "$2" -le 65535 ]; }; then
    die 2 "$1 must be a port from 1 to 65535, got '$2'"
  fi
}

while [ "$#" -gt 0 ]; do
  case "$1" in
    --processes) need_value "$@"; processes=$2; shift 2 ;;
    --port) need_value "$@"; port=$2; shift 2 ;;
    --listen) need_value "$@"; listen=$2; shift 2 ;;
    --base-path) need_value "$@"; base_path=$2; shift 2 ;;
    --base-url) need_value "$@"; base_url=$2; shift 2 ;;
    --app-port) need_value "$@"; app_port=$2; shift 2 ;;
    --app-address) need_value "$@"; app_address=$2; shift 2 ;;
    --upstream) need_value "$@"; upstreams+=("$2"); shift 2 ;;
    --no-proxy) proxy=0; shift ;;
    --run-dir) need_value "$@"; run_dir=$2; shift 2 ;;
    --cookie-secret-file) need_value "$@"; secret_file=$2; shift 2 ;;
    --start-timeout) need_value "$@"; start_timeout=$2; shift 2 ;;
    --check-config) check_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --*=*) die 2 "write '${1%%=*} ${1#*=}' (a space, not '=')" ;;
    *) die 2 "unknown argument '$1'" ;;
  esac
done

if [ -z "$processes" ]; then
  processes=$(nproc 2>/dev/null || echo 1)
fi
if ! { is_int "$processes" && [ "$processes" -le 64 ]; }; then
  die 2 "--processes must be a whole number from 0 to 64, got '$processes'"
fi
check_port --port "$port"
[ -n "$app_port" ] || app_port=$((port + 1))
check_port --app-port "$app_port"
[ $((app_port + processes - 1)) -le 65535 ] || die 2 "--app-port $app_port leaves no room for $processes processes"
if ! { is_int "$start_timeout" && [ "$start_timeout" -ge 1 ]; }; then
  die 2 "--start-timeout must be a whole number of seconds, got '$start_timeout'"
fi
url_re='^https?://[][A-Za-z0-9._:@%/-]+$' # letters, digits and what an address needs ([] for IPv6)
if [ -n "$base_url" ] && ! [[ $base_url =~ $url_re ]]; then
  die 2 "--base-url must be an http(s) address such as http://lab.school.example:8080, got '$base_url'"
fi
[[ $listen =~ ^[0-9A-Za-z.:_-]+$ ]] || die 2 "--listen must be an address such as 0.0.0.0 or 127.0.0.1, got '$listen'"
[[ $app_address =~ ^[0-9A-Za-z.:_-]+$ ]] || die 2 "--app-address must be an address such as 127.0.0.1, got '$app_address'"
for u in "${upstreams[@]}"; do
  [[ $u =~ ^[0-9A-Za-z._-]+:[0-9]+$ ]] || die 2 "--upstream must be HOST:PORT (e.g. 192.168.1.12:8501), got '$u'"
  check_port "--upstream $u" "${u##*:}"
done
if [ "$proxy" -eq 0 ] && { [ "$processes" -eq 0 ] || [ "${#upstreams[@]}" -gt 0 ] || [ "$check_only" -eq 1 ]; }; then
  die 2 "--no-proxy starts app processes only: it needs --processes 1 or more, and no --upstream or --check-config"
fi
if [ "$processes" -eq 0 ] && [ "${#upstreams[@]}" -eq 0 ]; then
  die 2 "--processes 0 needs at least one --upstream HOST:PORT (an app process on another machine)"
fi
if [ "$proxy" -eq 1 ] && [ "$port" -ge "$app_port" ] && [ "$port" -lt $((app_port + processes)) ]; then
  die 2 "--port $port is one of the app ports ($app_port to $((app_port + processes - 1))); choose another --app-port"
fi

# The base path: "" for the root, else "/name" (letters, digits, - _ . and inner slashes).
if [ -n "$base_path" ] && [ "$base_path" != "/" ]; then
  [[ $base_path == /* ]] || die 2 "--base-path must start with '/', e.g. /attention-lab, got '$base_path'"
  base_path=${base_path%/}
  [[ $base_path =~ ^(/[A-Za-z0-9._-]+)+$ ]] || die 2 "--base-path may hold only letters, digits, '-', '_', '.' and '/', got '$base_path'"
else
  base_path=""
fi

if [ "$proxy" -eq 1 ]; then
  run_dir=${run_dir:-${TMPDIR:-/tmp}/attention-lab-$port}
else
  run_dir=${run_dir:-${TMPDIR:-/tmp}/attention-lab-apps-$app_port}
fi
# The path goes into nginx.conf unquoted: keep it plain.
[[ $run_dir =~ ^[A-Za-z0-9/._-]+$ ]] || die 2 "--run-dir must be a path of letters, digits, '/', '.', '_' and '-', got '$run_dir'"
mkdir -p "$run_dir/logs" || die 1 "cannot create the run directory $run_dir"
run_dir=$(cd "$run_dir" && pwd)
secret_file=${secret_file:-$run_dir/cookie_secret}

PYTHON=${PYTHON:-$(command -v python3 || command -v python || true)}

# ----------------------------------------------------------------------------- nginx
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

find_nginx() {
  NGINX=${NGINX:-$(command -v nginx || true)}
  if [ -z "$NGINX" ] && [ -x /usr/sbin/nginx ]; then NGINX=/usr/sbin/nginx; fi
  [ -n "$NGINX" ]
}

ensure_nginx() {
  find_nginx && return 0
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }; then
    say "installing nginx with apt-get (Debian's package; serve.sh runs its own copy, not the nginx service)"
    as_root apt-get update >&2 || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y nginx >&2 ||
      die 3 "apt-get could not install nginx; install Debian's package 'nginx' and run serve.sh again"
    unset NGINX
    find_nginx || die 3 "nginx is still missing after apt-get install nginx"
  else
    die 3 "nginx is not installed, and it cannot be installed here (needs apt-get and root or sudo); install Debian's package 'nginx' first"
  fi
}

resolved() { # resolved HOST:PORT: the address nginx will show for it in $upstream_addr
  local host=${1%:*} port=${1##*:} ip
  if [[ $host =~ ^[0-9.]+$ ]]; then
    echo "$1"
    return 0
  fi
  ip=$(getent ahostsv4 "$host" 2>/dev/null | awk 'NR == 1 { print $1 }')
  [ -n "$ip" ] || die 1 "cannot resolve '$host' (from --upstream $1)"
  echo "$ip:$port"
}

write_nginx_config() {
  local servers="" i j user_line="" redirects="" location="/" cookie_path="/"
  local pools="" served="" pinned="" addresses=() address
  for ((i = 0; i < processes; i++)); do
    addresses+=("${app_address/0.0.0.0/127.0.0.1}:$((app_port + i))")
  done
  for u in "${upstreams[@]}"; do addresses+=("$(resolved "$u")"); done
  # Process i (from 1) is route "p<i>": its own group (the others as backups), and the regex
  # that knows it in $upstream_addr (which shows addresses, so names are resolved above).
  for ((i = 0; i < ${#addresses[@]}; i++)); do
    address=${addresses[$i]}
    servers+="        server $address max_fails=1 fail_timeout=10s;"$'\n'
    pools+="        p$((i + 1)) attention_lab_p$((i + 1));"$'\n'
    served+="        \"~(^|[ ,])${address//./\\.}\$\" p$((i + 1));"$'\n'
    pinned+="    upstream attention_lab_p$((i + 1)) {"$'\n'
    pinned+="        server $address max_fails=1 fail_timeout=10s;"$'\n'
    for ((j = 0; j < ${#addresses[@]}; j++)); do
      [ "$j" -eq "$i" ] || pinned+="        server ${addresses[$j]} max_fails=1 fail_timeout=10s backup;"$'\n'
    done
    pinned+="        keepalive 8;"$'\n'"    }"$'\n'
  done
  servers=${servers%$'\n'} pools=${pools%$'\n'} served=${served%$'\n'} pinned=${pinned%$'\n'}
  if [ "$(id -u)" -eq 0 ]; then
    # Started as root (better not: the systemd unit uses its own user), nginx's master stays
    # root and its workers drop to nobody; they never touch the disk (see the template).
    if getent group nogroup >/dev/null 2>&1; then
      user_line="user nobody nogroup;"
    else
      user_line="user nobody;"
    fi
  fi
  if [ -n "$base_path" ]; then
    location="$base_path/"
    cookie_path="$base_path/"
    redirects="        # The bare host and the path without its slash lead to the app."$'\n'
    redirects+="        location = / { return 302 $base_path/\$is_args\$args; }"$'\n'
    redirects+="        location = $base_path { return 301 $base_path/\$is_args\$args; }"
  fi
  local conf
  conf=$(<"$TEMPLATE")
  conf=${conf//@@USER_LINE@@/$user_line}
  conf=${conf//@@RUN_DIR@@/$run_dir}
  conf=${conf//@@LISTEN@@/$listen_spec}
  conf=${conf//@@UPSTREAM_SERVERS@@/$servers}
  conf=${conf//@@ROUTE_POOLS@@/$pools}
  conf=${conf//@@SERVED_ROUTES@@/$served}
  conf=${conf//@@PINNED_UPSTREAMS@@/$pinned}
  conf=${conf//@@REDIRECTS@@/$redirects}
  conf=${conf//@@LOCATION@@/$location}
  conf=${conf//@@COOKIE_PATH@@/$cookie_path}
  mkdir -p "$run_dir/tmp"
  printf '%s\n' "$conf" >"$run_dir/nginx.conf"
}

case "$listen" in
  *:*) listen_spec="[$listen]:$port" ;; # an IPv6 address
  *) listen_spec="$listen:$port" ;;
esac

if [ "$proxy" -eq 1 ]; then
  [ -r "$TEMPLATE" ] || die 1 "the nginx template $TEMPLATE is missing"
  ensure_nginx
  write_nginx_config
  if ! test_out=$("$NGINX" -t -q -p "$run_dir" -c "$run_dir/nginx.conf" -e "$run_dir/logs/error.log" 2>&1); then
    die 1 "nginx -t rejects $run_dir/nginx.conf:"$'\n'"$test_out"
  fi
  if [ "$check_only" -eq 1 ]; then
    say "nginx -t: $run_dir/nginx.conf is valid"
    echo "$run_dir/nginx.conf"
    exit 0
  fi
fi

# ----------------------------------------------------------------------------- checks
if [ "$processes" -gt 0 ]; then
  [ -n "$PYTHON" ] || die 1 "no python3 found; set PYTHON to the Python that has streamlit installed"
  "$PYTHON" -c "import streamlit" 2>/dev/null ||
    die 1 "$PYTHON cannot import streamlit; run 'pip install -r requirements.txt' or set PYTHON"
  [ -r "$ROOT/app.py" ] || die 1 "no app.py in $ROOT"
fi

port_busy() { # port_busy HOST PORT: something accepts connections there
  local host=$1
  [ "$host" = 0.0.0.0 ] && host=127.0.0.1
  [ "$host" = "::" ] && host=::1
  (exec 9<>"/dev/tcp/$host/$2") 2>/dev/null
}
if [ "$proxy" -eq 1 ] && port_busy "$listen" "$port"; then
  die 1 "port $port is in use already; choose another --port (or stop what listens there)"
fi
for ((i = 0; i < processes; i++)); do
  if port_busy "$app_address" $((app_port + i)); then
    die 1 "internal port $((app_port + i)) is in use already; choose another --app-port"
  fi
done

# One cookie secret for every process (and every machine that copies the file): Streamlit
# signs its cookies (XSRF and login) with it, so a cookie from one process holds on another.
if [ ! -s "$secret_file" ]; then
  (
    umask 077
    od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$secret_file"
  ) || die 1 "cannot write the cookie secret to $secret_file"
fi
cookie_secret=$(<"$secret_file")
[ "${#cookie_secret}" -ge 32 ] || die 1 "the cookie secret in $secret_file is shorter than 32 characters"

# ----------------------------------------------------------------------------- processes
declare -A app_pid=()  # port -> pid of its streamlit process
nginx_pid="" sleeper="" stopping=0 exit_code=0
STOP_GRACE_S=4 # seconds between SIGTERM and SIGKILL when stopping: everything is gone within 5 s
SETSID=$(command -v setsid || true) # util-linux: each app process in a session of its own

nap() { # sleep without blocking the traps (SIGTERM is handled at once)
  sleep "$1" &
  sleeper=$!
  wait "$sleeper" 2>/dev/null || true
  sleeper=""
}

start_app() { # start_app PORT
  local p=$1
  # attention_ui.launch is `streamlit run` with Streamlit's lookups of this machine's address
  # routed around the network from the start (a websocket from a foreign Origin made it ask an
  # outside service); browser.serverAddress keeps the banner from asking too: nothing leaves.
  local args=(-m attention_ui.launch app.py
    --server.headless true
    --server.address "$app_address"
    --server.port "$p"
    --server.fileWatcherType none
    --browser.serverAddress localhost
    --browser.gatherUsageStats false)
  [ -n "$base_path" ] && args+=(--server.baseUrlPath "${base_path#/}")
  # Each process leads a session (and process group) of its own, so that stopping it can kill
  # whatever it started too, and stops when serve.sh dies, however it dies (even SIGKILL, which
  # no trap sees: ATTENTION_LAB_PARENT_PID, attention_ui/lifeline.py). The secret goes through
  # the environment (readable by this user only), not the command line. The Class page's links
  # (attention_ui/class_link.py) start from --base-url when it is given.
  local extra=()
  [ -n "$base_url" ] && extra+=(ATTENTION_LAB_BASE_URL="$base_url")
  (cd "$ROOT" && exec $SETSID env STREAMLIT_SERVER_COOKIE_SECRET="$cookie_secret" HF_HUB_OFFLINE=1 ${extra[@]+"${extra[@]}"} \
    TRANSFORMERS_OFFLINE=1 ATTENTION_LAB_PARENT_PID=$$ "$PYTHON" "${args[@]}" </dev/null >>"$run_dir/logs/app-$p.log" 2>&1) &
  app_pid[$p]=$!
  echo "${app_pid[$p]}" >"$run_dir/app-$p.pid"
}

stop_all() {
  [ "$stopping" -eq 1 ] && return 0
  stopping=1
  trap '' INT TERM
  [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
  local pids=() pid waited=0 left=()
  [ -n "$nginx_pid" ] && pids+=("$nginx_pid")
  for pid in "${app_pid[@]}"; do [ -n "$pid" ] && pids+=("$pid"); done
  if [ "${#pids[@]}" -gt 0 ]; then
    say "stopping what it started (${#pids[@]} processes: the apps and nginx)"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    # An app stops its PyTorch checks and exits within about 2 s (docs/deploy.md, "Stopping");
    # whatever is left after STOP_GRACE_S is killed with its process group.
    while [ "$waited" -lt $((STOP_GRACE_S * 10)) ]; do
      local alive=0
      for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
      [ "$alive" -eq 0 ] && break
      sleep 0.1
      waited=$((waited + 1))
    done
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left+=("$pid"); done
    if [ "${#left[@]}" -gt 0 ]; then
      say "killing ${#left[@]} processes still running after ${STOP_GRACE_S} s: ${left[*]}"
      kill -KILL "${left[@]}" 2>/dev/null || true
    fi
    if [ -n "$SETSID" ]; then # and whatever an app started in its group (a model download)
      for pid in "${app_pid[@]}"; do [ -n "$pid" ] && { kill -KILL -- "-$pid" 2>/dev/null || true; }; done
    fi
    wait 2>/dev/null || true
  fi
  rm -f "$run_dir"/app-*.pid "$run_dir/serve.pid"
}
on_exit() {
  local code=$?
  [ "$exit_code" -ne 0 ] && code=$exit_code
  stop_all
  exit "$code"
}
trap on_exit EXIT
trap 'exit_code=130; exit 130' INT
trap 'exit_code=143; exit 143' TERM
echo $$ >"$run_dir/serve.pid"

http_ok() { # http_ok HOST PORT PATH: the answer's status is 200 (bash's /dev/tcp, no curl)
  local host=$1
  [ "$host" = 0.0.0.0 ] && host=127.0.0.1
  (
    exec 8<>"/dev/tcp/$host/$2" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: %s:%s\r\n\r\n' "$3" "$host" "$2" >&8
    IFS= read -r -t 10 line <&8 || exit 1
    [[ $line == HTTP/1.?" 200"* ]]
  ) 2>/dev/null
}

tail_log() { tail -n "${2:-25}" "$1" 2>/dev/null | sed 's/^/    /' >&2 || true; }

started=$SECONDS
if [ "$processes" -gt 0 ]; then
  say "starting $processes app processes on $app_address:$app_port-$((app_port + processes - 1)) (logs in $run_dir/logs)"
fi
for ((i = 0; i < processes; i++)); do start_app $((app_port + i)); done

# Ready means every process answers /_stcore/health (it does once the server is up).
declare -A healthy=()
while [ "${#healthy[@]}" -lt "$processes" ]; do
  for p in "${!app_pid[@]}"; do
    [ -n "${healthy[$p]:-}" ] && continue
    if ! kill -0 "${app_pid[$p]}" 2>/dev/null; then
      say "the app process on port $p exited before it was ready; its log ends:"
      tail_log "$run_dir/logs/app-$p.log"
      exit 1
    fi
    if http_ok "$app_address" "$p" "$base_path/_stcore/health"; then
      healthy[$p]=1
      say "app process on port $p (pid ${app_pid[$p]}) is ready after $((SECONDS - started)) s"
    fi
  done
  if [ "${#healthy[@]}" -lt "$processes" ]; then
    if [ $((SECONDS - started)) -ge "$start_timeout" ]; then
      say "not every app process answered /_stcore/health within $start_timeout s"
      for p in "${!app_pid[@]}"; do [ -n "${healthy[$p]:-}" ] || tail_log "$run_dir/logs/app-$p.log" 10; done
      exit 1
    fi
    nap 0.5
  fi
done

if [ "$proxy" -eq 1 ]; then
  # nginx through lifeline.py: it gets SIGTERM (its fast shutdown) when serve.sh dies, however
  # it dies. Without a Python (nginx alone in front of other machines) it runs as it is.
  lifeline=()
  [ -n "$PYTHON" ] && lifeline=("$PYTHON" "$ROOT/attention_ui/lifeline.py" "$$" --)
  ${lifeline[@]+"${lifeline[@]}"} "$NGINX" -p "$run_dir" -c "$run_dir/nginx.conf" -e "$run_dir/logs/error.log" -g "daemon off;" \
    </dev/null >>"$run_dir/logs/nginx.out" 2>&1 &
  nginx_pid=$!
  until http_ok "$listen" "$port" "$base_path/_stcore/health"; do
    if ! kill -0 "$nginx_pid" 2>/dev/null; then
      say "nginx stopped at start; its error log ends:"
      tail_log "$run_dir/logs/error.log"
      tail_log "$run_dir/logs/nginx.out"
      exit 1
    fi
    if [ $((SECONDS - started)) -ge "$start_timeout" ]; then
      say "nginx did not pass a health check through to the apps within $start_timeout s"
      tail_log "$run_dir/logs/error.log"
      exit 1
    fi
    nap 0.2
  done
  host=$listen
  [ "$host" = 0.0.0.0 ] && host=localhost
  [[ $host == *:* ]] && host="[$host]"
  # Printed on stdout, alone on its line: scripts and tests wait for it.
  echo "serve.sh: ready at http://$host:$port$base_path/ ($processes app processes, ${#upstreams[@]} on other machines; nginx pid $nginx_pid; $((SECONDS - started)) s)"
else
  echo "serve.sh: ready: $processes app processes on $app_address:$app_port-$((app_port + processes - 1)), no proxy ($((SECONDS - started)) s)"
fi

# ----------------------------------------------------------------------------- watch
# A process that dies is started again after 5 s; nginx sends its learners to the others
# meanwhile. If nginx itself dies, everything stops (systemd's Restart= starts it all again).
declare -A restart_at=()
while true; do
  nap 1
  if [ -n "$nginx_pid" ] && ! kill -0 "$nginx_pid" 2>/dev/null; then
    wait "$nginx_pid" 2>/dev/null && code=0 || code=$?
    say "nginx exited (code $code); stopping. Its error log ends:"
    tail_log "$run_dir/logs/error.log"
    exit_code=1
    exit 1
  fi
  for p in "${!app_pid[@]}"; do
    if [ -n "${restart_at[$p]:-}" ]; then
      if [ "$SECONDS" -ge "${restart_at[$p]}" ]; then
        unset "restart_at[$p]"
        start_app "$p"
        say "started the app process on port $p again (pid ${app_pid[$p]})"
      fi
    elif ! kill -0 "${app_pid[$p]}" 2>/dev/null; then
      wait "${app_pid[$p]}" 2>/dev/null && code=0 || code=$?
      say "the app process on port $p (pid ${app_pid[$p]}) exited with code $code; starting it again in 5 s"
      tail_log "$run_dir/logs/app-$p.log" 5
      app_pid[$p]=""
      restart_at[$p]=$((SECONDS + 5))
    fi
  done
done
