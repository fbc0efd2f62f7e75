import type { AgentCardV1, AgentSkillV1, RegisterAgentV1Request } from '@ioa/contracts';

/**
 * A combinatorial generator of realistic, varied agent cards for the discovery benchmark: domains × skills ×
 * phrasings × slot values (languages, cities, file formats, programming languages, ...) × tags, so that 100,000
 * cards are 100,000 different texts, not copies. Deterministic for a given seed.
 *
 * It also produces *labelled queries*: requests phrased with held-out templates (never used in the cards) whose
 * right answer is known (any agent that has the skill), to measure how well an embedder ranks.
 */

/** Mulberry32: a tiny, fast, seedable PRNG (the benchmark must generate the same data every run). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SLOTS: Record<string, string[]> = {
  lang: [
    'English',
    'German',
    'French',
    'Spanish',
    'Italian',
    'Portuguese',
    'Japanese',
    'Chinese',
    'Korean',
    'Arabic',
    'Dutch',
    'Polish',
    'Turkish',
    'Swedish',
  ],
  city: [
    'Berlin',
    'Paris',
    'Lisbon',
    'Oslo',
    'Tokyo',
    'Madrid',
    'Rome',
    'Vienna',
    'Prague',
    'Chicago',
    'Toronto',
    'Sydney',
    'Nairobi',
    'Seoul',
    'Mumbai',
    'Boston',
  ],
  format: ['PDF', 'Word', 'Excel', 'CSV', 'Markdown', 'HTML', 'PowerPoint', 'JSON'],
  plang: ['TypeScript', 'Python', 'Go', 'Rust', 'Java', 'Kotlin', 'C#', 'Ruby', 'PHP', 'Swift', 'C++', 'Scala'],
  cloud: ['AWS', 'Azure', 'Google Cloud', 'Kubernetes', 'Hetzner', 'DigitalOcean'],
  db: ['PostgreSQL', 'MySQL', 'MongoDB', 'SQLite', 'Snowflake', 'BigQuery', 'Redis'],
  cuisine: ['Italian', 'Thai', 'Mexican', 'Indian', 'Japanese', 'vegan', 'Mediterranean', 'Korean', 'French'],
  sport: ['running', 'cycling', 'swimming', 'strength training', 'yoga', 'football', 'tennis', 'climbing'],
  subject: [
    'algebra',
    'calculus',
    'chemistry',
    'physics',
    'biology',
    'history',
    'geography',
    'statistics',
    'economics',
  ],
  instrument: ['piano', 'guitar', 'violin', 'drums', 'cello', 'saxophone'],
  product: ['running shoes', 'laptops', 'coffee machines', 'headphones', 'office chairs', 'bicycles', 'phones'],
  audience: [
    'small businesses',
    'startups',
    'students',
    'hospitals',
    'law firms',
    'retailers',
    'non-profits',
    'families',
  ],
  channel: ['Instagram', 'LinkedIn', 'TikTok', 'YouTube', 'a newsletter', 'X', 'Facebook'],
  role: ['backend engineer', 'data scientist', 'nurse', 'sales manager', 'designer', 'accountant', 'teacher'],
};

interface SkillSpec {
  key: string;
  names: string[];
  descriptions: string[];
  tags: string[];
  examples: string[];
  /** Held-out phrasings for labelled queries: never used inside cards. */
  queries: string[];
}

interface DomainSpec {
  key: string;
  nouns: string[];
  descriptions: string[];
  tags: string[];
  skills: SkillSpec[];
}

const DOMAINS: DomainSpec[] = [
  {
    key: 'translation',
    nouns: ['translator', 'linguist', 'localizer', 'interpreter'],
    tags: ['languages', 'localization'],
    descriptions: [
      'Translates and localizes content between {lang} and {lang}.',
      'Professional translation for {audience}, from {lang} into many languages.',
      'Multilingual language services with native-quality output in {lang}.',
    ],
    skills: [
      {
        key: 'document-translation',
        names: ['Document translation', 'Translate documents', 'File translation'],
        descriptions: [
          'Translate {format} documents from {lang} to {lang} while keeping the layout.',
          'Translates whole files ({format}) between languages, preserving formatting.',
        ],
        tags: ['translation', 'documents'],
        examples: ['Translate this {format} contract into {lang}', 'Convert my {lang} brochure to {lang}'],
        queries: [
          'I have a {format} file in {lang} that needs to be in {lang}',
          'need my {lang} manual translated to {lang}',
          'render this {format} report in {lang}',
        ],
      },
      {
        key: 'website-localization',
        names: ['Website localization', 'App localization'],
        descriptions: [
          'Localize websites and mobile apps for {lang}-speaking markets, including dates and currencies.',
          'Adapts UI strings and marketing pages to local culture in {lang}.',
        ],
        tags: ['localization', 'i18n'],
        examples: ['Localize our checkout page for {lang} customers', 'Prepare the app strings for a {lang} release'],
        queries: ['adapt our web shop to the {lang} market', 'internationalize the mobile app UI for {lang} users'],
      },
      {
        key: 'subtitle-translation',
        names: ['Subtitle translation', 'Caption translation'],
        descriptions: [
          'Translate video subtitles and captions into {lang} with correct timing.',
          'Creates {lang} subtitles for videos from a transcript.',
        ],
        tags: ['subtitles', 'video'],
        examples: ['Subtitle this video in {lang}', 'Translate the SRT captions to {lang}'],
        queries: ['add {lang} captions to my youtube clip', 'make foreign-language subtitles for a film'],
      },
    ],
  },
  {
    key: 'code',
    nouns: ['coder', 'reviewer', 'developer', 'engineer', 'programmer'],
    tags: ['software', 'engineering'],
    descriptions: [
      'Senior software engineer for {plang} and {plang} projects.',
      'Helps developers ship better {plang} code faster.',
      'Code quality assistant for teams at {audience}.',
    ],
    skills: [
      {
        key: 'code-review',
        names: ['Code review', 'Pull request review'],
        descriptions: [
          'Review {plang} pull requests for bugs, security issues and style.',
          'Reads diffs and points out risky changes and missing tests in {plang}.',
        ],
        tags: ['code', 'review', 'quality'],
        examples: ['Review my pull request', 'Is there a bug in this {plang} function?'],
        queries: [
          'look over my {plang} diff before I merge it',
          'check this PR for mistakes',
          'second pair of eyes on a {plang} change',
        ],
      },
      {
        key: 'write-tests',
        names: ['Unit test writing', 'Test generation'],
        descriptions: [
          'Write unit and integration tests for {plang} code with high coverage.',
          'Generates test suites and finds untested edge cases.',
        ],
        tags: ['testing', 'code'],
        examples: ['Write tests for this {plang} module', 'Increase test coverage of the parser'],
        queries: ['my {plang} service has no unit tests, add some', 'generate test cases covering edge conditions'],
      },
      {
        key: 'debug',
        names: ['Debugging', 'Bug fixing'],
        descriptions: [
          'Find the root cause of crashes and failing builds in {plang} programs.',
          'Diagnoses stack traces, memory leaks and race conditions.',
        ],
        tags: ['debugging', 'code'],
        examples: ['Why does this {plang} program crash?', 'Fix the null pointer exception in my service'],
        queries: ['my app throws an exception on startup, find out why', 'track down a memory leak in {plang}'],
      },
      {
        key: 'refactor',
        names: ['Refactoring', 'Code modernization'],
        descriptions: [
          'Refactor legacy {plang} code into clean, modular, typed code.',
          'Migrates old codebases to modern {plang} idioms.',
        ],
        tags: ['refactoring', 'code'],
        examples: ['Refactor this class into smaller functions', 'Modernize our {plang} codebase'],
        queries: ['clean up this spaghetti {plang} code', 'restructure a legacy module without changing behaviour'],
      },
    ],
  },
  {
    key: 'weather',
    nouns: ['forecaster', 'meteorologist', 'weather'],
    tags: ['weather'],
    descriptions: [
      'Weather forecasts and climate data for {city} and other cities.',
      'Meteorology service: rain, wind, temperature and storm warnings.',
    ],
    skills: [
      {
        key: 'forecast',
        names: ['Weather forecast', 'Local forecast'],
        descriptions: [
          'Forecast rain, temperature and wind for {city} over the next days.',
          'Hourly and daily weather forecasts for any city.',
        ],
        tags: ['forecast', 'weather'],
        examples: ['Will it rain in {city} tomorrow?', 'Weather forecast for {city} this weekend'],
        queries: [
          'do I need an umbrella in {city} on Friday',
          'how warm will it be in {city} next week',
          'is a thunderstorm expected in {city}',
        ],
      },
      {
        key: 'climate-history',
        names: ['Climate statistics', 'Historical weather'],
        descriptions: [
          'Historical climate averages and records for {city}.',
          'Analyses long-term temperature and rainfall trends.',
        ],
        tags: ['climate', 'weather', 'history'],
        examples: ['Average July temperature in {city}', 'Rainfall records for {city} since 1990'],
        queries: ['what is the typical temperature in {city} in winter', 'long-term rainfall trend for {city}'],
      },
    ],
  },
  {
    key: 'finance',
    nouns: ['accountant', 'bookkeeper', 'controller', 'cfo'],
    tags: ['finance', 'accounting'],
    descriptions: [
      'Bookkeeping and tax assistant for {audience}.',
      'Automates accounting: ledgers, invoices, reconciliation and tax.',
      'Financial back office for {audience} in {city}.',
    ],
    skills: [
      {
        key: 'invoice-reconciliation',
        names: ['Invoice reconciliation', 'Bank reconciliation'],
        descriptions: [
          'Match invoices against bank statement lines and flag missing payments.',
          'Reconciles the ledger with bank accounts every month.',
        ],
        tags: ['reconciliation', 'invoices', 'banking'],
        examples: ['Reconcile these invoices with my bank statement', 'Which invoices are still unpaid?'],
        queries: ['compare my bank transactions with outstanding bills', 'find payments that do not match any invoice'],
      },
      {
        key: 'tax-return',
        names: ['Tax return preparation', 'VAT filing'],
        descriptions: [
          'Prepare VAT and income tax returns from the ledger.',
          'Computes quarterly tax and files returns for {audience}.',
        ],
        tags: ['tax', 'vat'],
        examples: ['Prepare my quarterly VAT return', 'Estimate my income tax for this year'],
        queries: ['file the sales tax report for last quarter', 'how much income tax do I owe'],
      },
      {
        key: 'budgeting',
        names: ['Budget planning', 'Cash flow forecast'],
        descriptions: [
          'Build budgets and cash flow forecasts from past spending.',
          'Plans monthly budgets and warns about overspending.',
        ],
        tags: ['budget', 'cashflow', 'planning'],
        examples: ['Make a budget for next year', 'Forecast our cash flow for six months'],
        queries: ['will we run out of money in the next months', 'plan spending limits for each department'],
      },
      {
        key: 'expense-reports',
        names: ['Expense reports', 'Receipt processing'],
        descriptions: [
          'Read receipts and build expense reports with categories.',
          'Extracts amounts and VAT from receipt photos.',
        ],
        tags: ['expenses', 'receipts'],
        examples: ['Turn these receipts into an expense report', 'Categorize my travel expenses'],
        queries: ['scan my receipts and total them by category', 'claim back business trip costs'],
      },
    ],
  },
  {
    key: 'cooking',
    nouns: ['chef', 'cook', 'kitchen', 'nutritionist'],
    tags: ['food', 'cooking'],
    descriptions: [
      'Cooking assistant specialised in {cuisine} cuisine.',
      'Recipes, meal plans and nutrition advice for {audience}.',
    ],
    skills: [
      {
        key: 'recipe-suggestion',
        names: ['Recipe suggestion', 'Recipe finder'],
        descriptions: [
          'Suggest {cuisine} recipes from the ingredients you have, with cooking steps.',
          'Finds recipes by ingredient, time and difficulty.',
        ],
        tags: ['recipes', 'cooking'],
        examples: ['What can I cook with eggs, spinach and feta?', 'A quick {cuisine} dinner for two'],
        queries: ['dinner idea with leftover rice and chicken', 'something {cuisine} I can make in twenty minutes'],
      },
      {
        key: 'meal-planning',
        names: ['Meal planning', 'Weekly menu'],
        descriptions: [
          'Plan weekly menus with shopping lists and calorie counts.',
          'Creates balanced meal plans for {audience}.',
        ],
        tags: ['meal-plan', 'nutrition'],
        examples: ['Plan my meals for next week', 'A high-protein meal plan for {sport}'],
        queries: ['what should my family eat this week, with a grocery list', 'healthy lunches for the whole week'],
      },
      {
        key: 'wine-pairing',
        names: ['Wine pairing', 'Drink pairing'],
        descriptions: [
          'Recommend wines and drinks that go with a dish.',
          'Pairs {cuisine} food with wine, beer or tea.',
        ],
        tags: ['wine', 'pairing'],
        examples: ['Which wine goes with lamb?', 'Pair a drink with {cuisine} curry'],
        queries: ['red or white with grilled salmon', 'what to drink with a spicy {cuisine} meal'],
      },
    ],
  },
  {
    key: 'travel',
    nouns: ['travel', 'trip-planner', 'tour-guide', 'booker'],
    tags: ['travel'],
    descriptions: [
      'Plans trips to {city} and beyond: flights, hotels and itineraries.',
      'Travel concierge for {audience}.',
    ],
    skills: [
      {
        key: 'flight-booking',
        names: ['Flight booking', 'Airfare search'],
        descriptions: [
          'Find and book flights between airports on given dates.',
          'Compares airfares to {city} and books the cheapest flight.',
        ],
        tags: ['flights', 'booking'],
        examples: ['Book a flight from {city} to {city} on May 3', 'Cheapest flight to {city} next month'],
        queries: ['get me a plane ticket to {city}', 'fly from {city} to {city} on a budget'],
      },
      {
        key: 'hotel-booking',
        names: ['Hotel booking', 'Accommodation search'],
        descriptions: [
          'Search and reserve hotels and apartments in {city}.',
          'Finds accommodation matching budget and location.',
        ],
        tags: ['hotels', 'booking'],
        examples: ['Find a hotel near the center of {city}', 'Book two nights in {city}'],
        queries: ['somewhere to stay in {city} for a weekend', 'reserve a room close to the old town of {city}'],
      },
      {
        key: 'itinerary',
        names: ['Itinerary planning', 'Sightseeing plan'],
        descriptions: [
          'Plan day-by-day itineraries with sights, museums and restaurants.',
          'Builds city tour plans for {city}.',
        ],
        tags: ['itinerary', 'sightseeing'],
        examples: ['Plan three days in {city}', 'What to see in {city} in one day'],
        queries: [
          'which sights should I visit during a short stay in {city}',
          'a walking route through {city} museums',
        ],
      },
    ],
  },
  {
    key: 'data',
    nouns: ['analyst', 'data-scientist', 'bi', 'statistician'],
    tags: ['data', 'analytics'],
    descriptions: [
      'Data analysis on {db}: SQL, dashboards and statistics.',
      'Turns raw data into insight for {audience}.',
    ],
    skills: [
      {
        key: 'sql',
        names: ['SQL query writing', 'Query optimisation'],
        descriptions: [
          'Write and optimise SQL queries for {db}.',
          'Explains slow queries and adds the right indexes in {db}.',
        ],
        tags: ['sql', 'database'],
        examples: ['Write a SQL query for monthly revenue per customer', 'Why is this {db} query slow?'],
        queries: ['select the top customers by revenue from the orders table', 'speed up a slow {db} query'],
      },
      {
        key: 'charts',
        names: ['Charting', 'Dashboard building'],
        descriptions: [
          'Turn spreadsheets into bar, line or pie charts and dashboards.',
          'Builds dashboards from {format} and {db} data.',
        ],
        tags: ['charts', 'visualization', 'dashboards'],
        examples: ['Make a line chart of signups per week', 'Build a sales dashboard'],
        queries: ['visualize monthly sales as a graph', 'plot these numbers from my spreadsheet'],
      },
      {
        key: 'statistics',
        names: ['Statistical analysis', 'A/B test analysis'],
        descriptions: [
          'Run statistical tests, regressions and A/B test analysis.',
          'Checks whether results are statistically significant.',
        ],
        tags: ['statistics', 'experiments'],
        examples: ['Is this A/B test result significant?', 'Run a regression on these columns'],
        queries: ['did the new landing page really increase conversions', 'compute p-values for my experiment'],
      },
      {
        key: 'data-cleaning',
        names: ['Data cleaning', 'Data wrangling'],
        descriptions: [
          'Clean messy {format} data: duplicates, missing values, formats.',
          'Normalizes and deduplicates datasets before analysis.',
        ],
        tags: ['etl', 'cleaning'],
        examples: ['Remove duplicate rows from this {format}', 'Fix the date formats in my dataset'],
        queries: [
          'my {format} export has duplicates and blanks, tidy it',
          'standardize inconsistent columns in a dataset',
        ],
      },
    ],
  },
  {
    key: 'recruiting',
    nouns: ['recruiter', 'talent', 'hr', 'headhunter'],
    tags: ['hr', 'recruiting'],
    descriptions: [
      'Recruiting assistant for {audience}: sourcing, screening and interviews.',
      'Helps hire a {role} faster.',
    ],
    skills: [
      {
        key: 'resume-screening',
        names: ['Resume screening', 'CV screening'],
        descriptions: [
          'Rank candidate resumes against the requirements of a job opening.',
          'Screens CVs for a {role} position.',
        ],
        tags: ['hiring', 'resumes'],
        examples: ['Screen these resumes for the {role} job', 'Shortlist the best five CVs'],
        queries: ['which applicants fit the {role} opening best', 'filter job applications by required skills'],
      },
      {
        key: 'job-description',
        names: ['Job description writing', 'Job ad writing'],
        descriptions: [
          'Write inclusive job descriptions and job ads for a {role}.',
          'Drafts job postings for {channel}.',
        ],
        tags: ['hiring', 'writing'],
        examples: ['Write a job ad for a {role}', 'Improve this job description'],
        queries: ['draft a vacancy posting for a {role}', 'we are hiring, write the listing'],
      },
      {
        key: 'interview-scheduling',
        names: ['Interview scheduling', 'Interview planning'],
        descriptions: [
          'Schedule interviews between candidates and the hiring team.',
          'Prepares interview questions for a {role}.',
        ],
        tags: ['interviews', 'scheduling'],
        examples: ['Schedule interviews for Tuesday', 'Interview questions for a {role}'],
        queries: ['set up calls with three applicants next week', 'what should I ask a {role} candidate'],
      },
    ],
  },
  {
    key: 'devops',
    nouns: ['devops', 'sre', 'platform', 'ops'],
    tags: ['devops', 'infrastructure'],
    descriptions: [
      'DevOps engineer for {cloud}: deployments, monitoring and incidents.',
      'Keeps services running on {cloud} for {audience}.',
    ],
    skills: [
      {
        key: 'deploy',
        names: ['Deployment automation', 'CI/CD pipelines'],
        descriptions: [
          'Set up CI/CD pipelines and automated deployments to {cloud}.',
          'Writes build and release pipelines for {plang} services.',
        ],
        tags: ['ci', 'deployment'],
        examples: ['Deploy this service to {cloud}', 'Set up a CI pipeline for our repo'],
        queries: ['automate releases of my app to {cloud}', 'build and ship on every git push'],
      },
      {
        key: 'kubernetes',
        names: ['Kubernetes operations', 'Cluster management'],
        descriptions: [
          'Write Kubernetes manifests, Helm charts and autoscaling rules.',
          'Operates Kubernetes clusters on {cloud}.',
        ],
        tags: ['kubernetes', 'containers'],
        examples: ['Write a Helm chart for this service', 'Why is my pod crash-looping?'],
        queries: ['my k8s deployment keeps restarting', 'containerize the app and run it on a cluster'],
      },
      {
        key: 'monitoring',
        names: ['Monitoring and alerting', 'Incident response'],
        descriptions: [
          'Set up metrics, logs, alerts and on-call runbooks.',
          'Investigates outages and writes postmortems.',
        ],
        tags: ['monitoring', 'alerts', 'incidents'],
        examples: ['Set up alerts for high latency', 'Write a postmortem for yesterday’s outage'],
        queries: ['page me when error rates spike', 'the site was down last night, analyse what happened'],
      },
    ],
  },
  {
    key: 'security',
    nouns: ['security', 'pentester', 'auditor', 'guardian'],
    tags: ['security'],
    descriptions: [
      'Application security for {audience}: audits, scans and compliance.',
      'Finds vulnerabilities before attackers do.',
    ],
    skills: [
      {
        key: 'vulnerability-scan',
        names: ['Vulnerability scanning', 'Dependency audit'],
        descriptions: [
          'Scan code and dependencies for known vulnerabilities (CVEs).',
          'Audits {plang} dependencies for security issues.',
        ],
        tags: ['vulnerabilities', 'cve'],
        examples: ['Scan our dependencies for CVEs', 'Is this library vulnerable?'],
        queries: ['check my packages for known exploits', 'are any of our libraries insecure'],
      },
      {
        key: 'pentest',
        names: ['Penetration testing', 'Web app pentest'],
        descriptions: [
          'Test web applications for injection, XSS and broken authentication.',
          'Runs authorised penetration tests and reports findings.',
        ],
        tags: ['pentest', 'owasp'],
        examples: ['Pentest our login page', 'Check the API for SQL injection'],
        queries: ['try to hack our web app and report weaknesses', 'look for cross-site scripting holes'],
      },
      {
        key: 'compliance',
        names: ['Compliance review', 'GDPR review'],
        descriptions: [
          'Review systems for GDPR, SOC 2 and ISO 27001 compliance.',
          'Writes security policies and data protection documents.',
        ],
        tags: ['compliance', 'gdpr'],
        examples: ['Are we GDPR compliant?', 'Prepare for a SOC 2 audit'],
        queries: ['privacy regulation checklist for our product', 'get ready for the ISO 27001 certification'],
      },
    ],
  },
  {
    key: 'legal',
    nouns: ['lawyer', 'paralegal', 'counsel', 'legal'],
    tags: ['legal'],
    descriptions: [
      'Legal assistant for {audience} in {city}.',
      'Contract and compliance support, in {lang} and {lang}.',
    ],
    skills: [
      {
        key: 'contract-review',
        names: ['Contract review', 'Contract analysis'],
        descriptions: [
          'Review contracts and highlight risky clauses and obligations.',
          'Summarises NDAs, leases and service agreements.',
        ],
        tags: ['contracts', 'review'],
        examples: ['Review this NDA', 'What are my obligations under this lease?'],
        queries: ['is there anything dangerous in this agreement', 'explain the termination clause of my rental deal'],
      },
      {
        key: 'contract-drafting',
        names: ['Contract drafting', 'Legal drafting'],
        descriptions: [
          'Draft contracts, terms of service and privacy policies.',
          'Writes legal templates for {audience}.',
        ],
        tags: ['contracts', 'drafting'],
        examples: ['Draft terms of service for our app', 'Write a freelance contract'],
        queries: ['create an agreement for hiring a freelancer', 'I need terms and conditions for my website'],
      },
      {
        key: 'trademark',
        names: ['Trademark search', 'IP research'],
        descriptions: [
          'Search trademarks and check whether a brand name is available.',
          'Researches patents and intellectual property.',
        ],
        tags: ['trademark', 'ip'],
        examples: ['Is the name "Nova" trademarked?', 'Search patents about batteries'],
        queries: ['can I use this brand name or is it taken', 'look up existing patents on a device'],
      },
    ],
  },
  {
    key: 'marketing',
    nouns: ['marketer', 'copywriter', 'growth', 'brand'],
    tags: ['marketing'],
    descriptions: ['Marketing and copywriting for {audience}.', 'Grows audiences on {channel} and {channel}.'],
    skills: [
      {
        key: 'social-posts',
        names: ['Social media posts', 'Content calendar'],
        descriptions: [
          'Write and schedule posts for {channel}.',
          'Plans a content calendar with hashtags for {channel}.',
        ],
        tags: ['social-media', 'content'],
        examples: ['Write five posts for {channel} about our launch', 'Plan next month’s {channel} content'],
        queries: ['announce our new feature on {channel}', 'ideas for engaging posts this week'],
      },
      {
        key: 'seo',
        names: ['SEO optimisation', 'Keyword research'],
        descriptions: ['Research keywords and optimise pages for search engines.', 'Audits websites for SEO problems.'],
        tags: ['seo', 'search'],
        examples: ['Find keywords for a page about {product}', 'Why does our site rank so low on Google?'],
        queries: ['get my shop higher in google results', 'which search terms should our blog target'],
      },
      {
        key: 'ad-copy',
        names: ['Ad copywriting', 'Email campaigns'],
        descriptions: [
          'Write ad copy and email campaigns that convert.',
          'Creates A/B variants of newsletters and landing pages.',
        ],
        tags: ['copywriting', 'email'],
        examples: ['Write a promo email for {product}', 'Three headlines for our ad'],
        queries: ['catchy slogan for selling {product}', 'newsletter text announcing a discount'],
      },
    ],
  },
  {
    key: 'education',
    nouns: ['tutor', 'teacher', 'coach', 'mentor'],
    tags: ['education'],
    descriptions: ['Patient tutor for {subject} and {subject}.', 'Learning companion for {audience}.'],
    skills: [
      {
        key: 'tutoring',
        names: ['Homework help', 'Tutoring'],
        descriptions: [
          'Explain {subject} step by step and check homework.',
          'Tutors high school and university {subject}.',
        ],
        tags: ['tutoring', 'homework'],
        examples: ['Explain how to solve this {subject} problem', 'Check my {subject} homework'],
        queries: ['my kid is stuck on {subject} exercises', 'walk me through a {subject} question'],
      },
      {
        key: 'quiz',
        names: ['Quiz generation', 'Flashcards'],
        descriptions: ['Create quizzes and flashcards from course notes.', 'Generates practice exams in {subject}.'],
        tags: ['quiz', 'study'],
        examples: ['Make flashcards from this chapter', 'A ten-question {subject} quiz'],
        queries: ['practice test questions for my {subject} exam', 'turn my notes into study cards'],
      },
      {
        key: 'language-learning',
        names: ['Language practice', 'Conversation practice'],
        descriptions: [
          'Practice conversation and grammar in {lang}.',
          'Teaches {lang} vocabulary with spaced repetition.',
        ],
        tags: ['language-learning', 'languages'],
        examples: ['Let’s practice {lang} conversation', 'Correct my {lang} grammar'],
        queries: ['I want to learn to speak {lang}', 'improve my {lang} speaking skills'],
      },
    ],
  },
  {
    key: 'health',
    nouns: ['fitness', 'trainer', 'wellness', 'health'],
    tags: ['health'],
    descriptions: ['Fitness and wellness coach for {sport}.', 'Health companion for {audience}.'],
    skills: [
      {
        key: 'training-plan',
        names: ['Training plan', 'Workout planning'],
        descriptions: ['Build {sport} training plans for beginners and athletes.', 'Creates weekly workout schedules.'],
        tags: ['fitness', 'training'],
        examples: ['A 12-week marathon plan', 'Plan my {sport} workouts'],
        queries: ['get me in shape for a 10k race', 'exercise schedule to build strength'],
      },
      {
        key: 'sleep',
        names: ['Sleep coaching', 'Stress management'],
        descriptions: [
          'Improve sleep habits and manage stress with daily routines.',
          'Guided breathing and meditation sessions.',
        ],
        tags: ['sleep', 'wellbeing'],
        examples: ['Help me sleep better', 'A five-minute meditation'],
        queries: ['I keep waking up at night', 'relaxation exercises for anxiety'],
      },
    ],
  },
  {
    key: 'ecommerce',
    nouns: ['shop', 'merchant', 'store', 'commerce'],
    tags: ['ecommerce'],
    descriptions: ['Online store assistant for shops selling {product}.', 'E-commerce operations for {audience}.'],
    skills: [
      {
        key: 'product-descriptions',
        names: ['Product descriptions', 'Catalog writing'],
        descriptions: [
          'Write product descriptions and titles for {product}.',
          'Enriches catalog data with attributes and copy.',
        ],
        tags: ['catalog', 'copywriting'],
        examples: ['Describe these {product} for our shop', 'Write titles for 50 products'],
        queries: ['make my item listings more appealing', 'text for the {product} pages of my webshop'],
      },
      {
        key: 'price-monitoring',
        names: ['Price monitoring', 'Competitor pricing'],
        descriptions: [
          'Track competitor prices for {product} and suggest price changes.',
          'Monitors marketplaces for price drops.',
        ],
        tags: ['pricing', 'competitors'],
        examples: ['What do competitors charge for {product}?', 'Alert me when prices drop'],
        queries: ['are we cheaper than other stores', 'watch rival shops and tell me their prices'],
      },
      {
        key: 'customer-support',
        names: ['Customer support', 'Order support'],
        descriptions: [
          'Answer customer questions about orders, returns and shipping.',
          'Handles support tickets and refunds.',
        ],
        tags: ['support', 'orders'],
        examples: ['Where is my order?', 'How do I return these {product}?'],
        queries: ['a buyer wants a refund for a damaged parcel', 'reply to shipping questions from clients'],
      },
    ],
  },
  {
    key: 'media',
    nouns: ['editor', 'studio', 'designer', 'producer'],
    tags: ['media', 'creative'],
    descriptions: [
      'Creative studio for {audience}: images, video and audio.',
      'Design and media production for {channel}.',
    ],
    skills: [
      {
        key: 'image-generation',
        names: ['Image generation', 'Illustration'],
        descriptions: [
          'Generate images, logos and illustrations from a description.',
          'Creates artwork for {channel}.',
        ],
        tags: ['images', 'design'],
        examples: ['Draw a logo for a coffee shop', 'An illustration of a fox in the snow'],
        queries: ['design an emblem for my bakery', 'picture of a mountain lake at sunset'],
      },
      {
        key: 'video-editing',
        names: ['Video editing', 'Video production'],
        descriptions: ['Cut, edit and caption videos for {channel}.', 'Turns long recordings into short clips.'],
        tags: ['video', 'editing'],
        examples: ['Cut this interview into three clips', 'Edit my vlog'],
        queries: ['trim my recording into highlights for {channel}', 'make a short reel from raw footage'],
      },
      {
        key: 'music',
        names: ['Music composition', 'Music lessons'],
        descriptions: [
          'Compose melodies and teach {instrument}.',
          'Writes background music and transcribes scores for {instrument}.',
        ],
        tags: ['music', 'audio'],
        examples: ['Compose a jingle for our podcast', 'Teach me {instrument} chords'],
        queries: ['background tune for a commercial', 'learn to play {instrument} as a beginner'],
      },
    ],
  },
  {
    key: 'research',
    nouns: ['researcher', 'scholar', 'librarian', 'scientist'],
    tags: ['research'],
    descriptions: ['Research assistant for {subject} and {subject}.', 'Finds and summarises sources for {audience}.'],
    skills: [
      {
        key: 'literature-review',
        names: ['Literature review', 'Paper search'],
        descriptions: [
          'Find and summarise academic papers on a topic.',
          'Writes literature reviews with citations in {subject}.',
        ],
        tags: ['papers', 'citations'],
        examples: ['Find recent papers on battery chemistry', 'Summarise the literature on {subject} education'],
        queries: [
          'what does current science say about this topic, with references',
          'collect scholarly articles about {subject}',
        ],
      },
      {
        key: 'summarize',
        names: ['Summarization', 'Meeting notes'],
        descriptions: [
          'Summarise long documents, transcripts and meetings into key points.',
          'Turns {format} reports into one-page briefs.',
        ],
        tags: ['summaries', 'notes'],
        examples: ['Summarise this {format} report', 'Action items from the meeting transcript'],
        queries: ['give me the short version of this long report', 'tl;dr of the call recording'],
      },
      {
        key: 'fact-check',
        names: ['Fact checking', 'Source verification'],
        descriptions: [
          'Check claims against reliable sources and flag misinformation.',
          'Verifies quotes, numbers and dates in articles.',
        ],
        tags: ['fact-checking', 'verification'],
        examples: ['Is this claim true?', 'Verify the numbers in this article'],
        queries: ['is this news story accurate', 'confirm whether a statistic is correct'],
      },
    ],
  },
  {
    key: 'realestate',
    nouns: ['realtor', 'property', 'estate', 'landlord'],
    tags: ['real-estate'],
    descriptions: ['Real estate assistant for {city}.', 'Helps {audience} buy, rent and manage property.'],
    skills: [
      {
        key: 'property-search',
        names: ['Property search', 'Apartment hunting'],
        descriptions: [
          'Find apartments and houses to rent or buy in {city}.',
          'Matches listings to budget, size and neighbourhood.',
        ],
        tags: ['housing', 'rentals'],
        examples: ['Find a two-bedroom flat in {city}', 'Houses for sale under 400k'],
        queries: ['looking for a place to live in {city}', 'rent a family home with a garden'],
      },
      {
        key: 'property-valuation',
        names: ['Property valuation', 'Rent estimation'],
        descriptions: [
          'Estimate property values and fair rents from comparable sales.',
          'Valuation reports for landlords in {city}.',
        ],
        tags: ['valuation', 'pricing'],
        examples: ['What is my apartment worth?', 'Fair rent for a studio in {city}'],
        queries: ['how much could I sell my house for', 'am I paying too much rent in {city}'],
      },
    ],
  },
  {
    key: 'logistics',
    nouns: ['dispatcher', 'logistics', 'shipping', 'fleet'],
    tags: ['logistics'],
    descriptions: ['Logistics planning for {audience}.', 'Shipping and warehouse operations across {city} and {city}.'],
    skills: [
      {
        key: 'route-planning',
        names: ['Route planning', 'Delivery routing'],
        descriptions: [
          'Plan delivery routes for vans and couriers, minimising distance.',
          'Optimises multi-stop routes in {city}.',
        ],
        tags: ['routing', 'delivery'],
        examples: ['Plan routes for 20 deliveries', 'Fastest route through these stops'],
        queries: ['schedule our couriers for today’s parcels', 'shortest path visiting all customers'],
      },
      {
        key: 'inventory',
        names: ['Inventory management', 'Stock forecasting'],
        descriptions: ['Track stock levels and forecast when to reorder.', 'Warehouse inventory for {product}.'],
        tags: ['inventory', 'warehouse'],
        examples: ['When should I reorder {product}?', 'Which items are out of stock?'],
        queries: ['we keep running out of {product} in the warehouse', 'predict demand to restock in time'],
      },
    ],
  },
  {
    key: 'support',
    nouns: ['helpdesk', 'support', 'it-support', 'service-desk'],
    tags: ['it', 'support'],
    descriptions: ['IT helpdesk for {audience}.', 'First-line technical support, in {lang}.'],
    skills: [
      {
        key: 'it-troubleshooting',
        names: ['IT troubleshooting', 'Computer help'],
        descriptions: [
          'Fix laptop, printer, Wi-Fi and email problems.',
          'Guides users through resetting passwords and devices.',
        ],
        tags: ['troubleshooting', 'hardware'],
        examples: ['My printer is offline', 'I cannot connect to Wi-Fi'],
        queries: ['my laptop will not turn on', 'outlook keeps asking for my password'],
      },
      {
        key: 'account-admin',
        names: ['Account administration', 'Access management'],
        descriptions: [
          'Create user accounts, reset passwords and manage access rights.',
          'Onboards employees to company tools.',
        ],
        tags: ['accounts', 'access'],
        examples: ['Create an account for the new hire', 'Reset my password'],
        queries: ['give a new colleague access to our systems', 'I am locked out of my account'],
      },
    ],
  },
  {
    key: 'calendar',
    nouns: ['scheduler', 'secretary', 'assistant', 'organizer'],
    tags: ['productivity'],
    descriptions: ['Personal organizer for busy people at {audience}.', 'Calendar and email assistant.'],
    skills: [
      {
        key: 'meeting-scheduling',
        names: ['Meeting scheduling', 'Calendar management'],
        descriptions: [
          'Find meeting times across calendars and send invitations.',
          'Manages calendars across time zones ({city} and {city}).',
        ],
        tags: ['calendar', 'meetings'],
        examples: ['Find a slot for a meeting with Anna', 'Move my 3pm to tomorrow'],
        queries: ['when are all five of us free next week', 'book a call with the team across time zones'],
      },
      {
        key: 'email-drafting',
        names: ['Email drafting', 'Inbox triage'],
        descriptions: ['Draft replies and sort the inbox by priority.', 'Writes polite emails in {lang}.'],
        tags: ['email', 'writing'],
        examples: ['Reply to this email politely', 'Which emails need an answer today?'],
        queries: ['answer my client’s message for me', 'clean up my overflowing mailbox'],
      },
    ],
  },
];

const ADJECTIVES = [
  'swift',
  'clever',
  'quiet',
  'bright',
  'steady',
  'nimble',
  'bold',
  'calm',
  'keen',
  'lucid',
  'brisk',
  'solid',
  'agile',
  'sharp',
  'gentle',
  'vivid',
  'prime',
  'true',
  'noble',
  'smart',
];

export interface GeneratedAgent {
  registration: RegisterAgentV1Request;
  /** Keys (`domain/skill`) of the skills the card has: the ground truth for labelled queries. */
  skillKeys: string[];
}

export interface LabelledQuery {
  query: string;
  /** Any agent having this skill is a correct answer. */
  skillKey: string;
}

export class AgentCardGenerator {
  private readonly random: () => number;

  constructor(seed = 42) {
    this.random = seededRandom(seed);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private fill(template: string): string {
    return template.replace(/\{(\w+)\}/g, (_, slot: string) => this.pick(SLOTS[slot] ?? [slot]));
  }

  private sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const chosen: T[] = [];
    while (chosen.length < count && pool.length > 0)
      chosen.push(pool.splice(Math.floor(this.random() * pool.length), 1)[0]);
    return chosen;
  }

  /** The `index`-th agent: names are unique by construction (the index is part of the name). */
  agent(index: number, owner = 'bench-owner'): GeneratedAgent {
    const domain = this.pick(DOMAINS);
    const own = this.sample(domain.skills, 1 + Math.floor(this.random() * Math.min(3, domain.skills.length)));
    const picked = own.map((skill) => ({ domain, skill }));
    if (this.random() < 0.25) {
      const other = this.pick(DOMAINS.filter((candidate) => candidate !== domain));
      picked.push({ domain: other, skill: this.pick(other.skills) });
    }
    const skills: AgentSkillV1[] = picked.map(({ domain: from, skill }) => {
      const tags = this.sample([...skill.tags, ...from.tags], 2 + Math.floor(this.random() * 3));
      return {
        id: `${from.key}-${skill.key}`.slice(0, 63),
        name: this.pick(skill.names),
        description: this.fill(this.pick(skill.descriptions)),
        tags,
        examples: this.sample(skill.examples, 1 + Math.floor(this.random() * skill.examples.length)).map((example) =>
          this.fill(example),
        ),
      };
    });
    const noun = this.pick(domain.nouns);
    const name = `${this.pick(ADJECTIVES)}-${noun}-${index.toString(36)}`;
    const description =
      `${this.fill(this.pick(domain.descriptions))} ${this.random() < 0.5 ? `Based in ${this.pick(SLOTS.city)}.` : ''}`.trim();
    return {
      registration: {
        name,
        description,
        skills,
        defaultInputModes: ['text/plain'],
        defaultOutputModes: this.random() < 0.3 ? ['text/plain', 'application/json'] : ['text/plain'],
        owner,
        endpoint: { kind: 'nats' },
        version: `1.${Math.floor(this.random() * 10)}.0`,
        metadata: { generated: true },
      },
      skillKeys: picked.map(({ domain: from, skill }) => `${from.key}/${skill.key}`),
    };
  }

  /** A stored card (as the registry would publish it) for direct insertion. */
  card(index: number, id: string, now: string): { card: AgentCardV1; skillKeys: string[] } {
    const { registration, skillKeys } = this.agent(index);
    const status = this.random() < 0.9 ? 'online' : 'offline';
    return {
      card: {
        ...registration,
        id,
        status,
        revision: 1,
        registeredAt: now,
        updatedAt: now,
        lastSeenAt: now,
      },
      skillKeys,
    };
  }

  /** Labelled queries phrased with the held-out templates. */
  queries(count: number): LabelledQuery[] {
    const all = DOMAINS.flatMap((domain) => domain.skills.map((skill) => ({ domain, skill })));
    return Array.from({ length: count }, () => {
      const { domain, skill } = this.pick(all);
      return { query: this.fill(this.pick(skill.queries)), skillKey: `${domain.key}/${skill.key}` };
    });
  }

  /** Queries phrased like the cards' own examples (the easy case: shared vocabulary). */
  exampleQueries(count: number): LabelledQuery[] {
    const all = DOMAINS.flatMap((domain) => domain.skills.map((skill) => ({ domain, skill })));
    return Array.from({ length: count }, () => {
      const { domain, skill } = this.pick(all);
      return { query: this.fill(this.pick(skill.examples)), skillKey: `${domain.key}/${skill.key}` };
    });
  }
}

export const DOMAIN_COUNT = DOMAINS.length;
export const SKILL_COUNT = DOMAINS.reduce((sum, domain) => sum + domain.skills.length, 0);
