"""The class's answers, kept in a database: a plain package (SQLAlchemy, no Streamlit).

``codes``  the class code a room types, the teacher's secret token, the student's key;
``store``  ``ClassStore``: classes, rounds, students and answers, with the limits that keep a
           class safe; SQLite (WAL) by default, PostgreSQL by URL; the schema made and migrated
           here (``migrate``);
``config`` where the database is (``database_url``) and how long a class is kept.

The app reaches it through ``st.connection("classroom", type="sql")`` (attention_ui/class_db.py);
tests and the bench build an engine with ``store.open_store(url)``.
"""
